// serialize::OutputArchive / InputArchive: numbers, tensors, nested archives,
// reading into an existing tensor in place, and the errors of read().
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/serialize/checkpoint_files.h"

namespace {

using ckpt::expect_throw;
using kiln::Tensor;

TEST(SerializeArchive, NumbersTensorsAndNestedArchivesRoundTrip) {
  ckpt::ScratchDir dir;
  torch::serialize::OutputArchive out, inner;
  inner.write("lr", 0.125);
  inner.write("flag", true);
  out.write("epoch", std::int64_t{-7});
  out.write("weight", torch::tensor({1.5, 2.5}));
  out.write("opt", inner);
  EXPECT_EQ(out.keys(), (std::vector<std::string>{"epoch", "opt.flag", "opt.lr", "weight"}));
  out.save_to(dir.path("a.kiln"));

  torch::serialize::InputArchive in;
  in.load_from(dir.path("a.kiln"));
  EXPECT_EQ(in.filename(), dir.path("a.kiln"));
  std::int64_t epoch = 0;
  in.read("epoch", epoch);
  EXPECT_EQ(epoch, -7);
  Tensor w;
  in.read("weight", w);
  EXPECT_EQ(w.to_vector<double>(), (std::vector<double>{1.5, 2.5}));
  EXPECT_TRUE(in.contains("opt"));
  EXPECT_FALSE(in.contains("op"));
  torch::serialize::InputArchive nested;
  in.read("opt", nested);
  EXPECT_EQ(nested.keys(), (std::vector<std::string>{"flag", "lr"}));
  double lr = 0;
  bool flag = false;
  nested.read("lr", lr);
  nested.read("flag", flag);
  EXPECT_EQ(lr, 0.125);
  EXPECT_TRUE(flag);
}

TEST(SerializeArchive, ReadIntoADefinedTensorCopiesInPlace) {
  ckpt::ScratchDir dir;
  torch::serialize::OutputArchive out;
  out.write("w", torch::tensor({3.0f, 4.0f}));
  out.save_to(dir.path("w.kiln"));
  torch::serialize::InputArchive in;
  in.load_from(dir.path("w.kiln"));
  Tensor target = torch::zeros({2}).requires_grad_(true);
  const Tensor alias = target;
  in.read("w", target);
  EXPECT_TRUE(target.is_same(alias));
  EXPECT_TRUE(target.requires_grad());
  EXPECT_TRUE(target.is_leaf());
  EXPECT_EQ(alias.to_vector<double>(), (std::vector<double>{3, 4}));
}

TEST(SerializeArchive, ReadErrorsNameTheFileKeyAndShapes) {
  ckpt::ScratchDir dir;
  const std::string file = dir.path("e.kiln");
  torch::serialize::OutputArchive out;
  out.write("w", torch::ones({2, 3}));
  out.write("n", 1.0);
  out.save_to(file);
  torch::serialize::InputArchive in;
  in.load_from(file);

  Tensor wrong_shape = torch::zeros({3, 2});
  std::string msg = expect_throw<kiln::ShapeError>([&] { in.read("w", wrong_shape); });
  EXPECT_NE(msg.find(file), std::string::npos) << msg;
  EXPECT_NE(msg.find("'w' has shape [2, 3] in the file but [3, 2]"), std::string::npos) << msg;
  EXPECT_EQ(wrong_shape.to_vector<double>(), std::vector<double>(6, 0.0));

  Tensor wrong_dtype = torch::zeros({2, 3}, torch::kFloat64);
  msg = expect_throw<kiln::DtypeError>([&] { in.read("w", wrong_dtype); });
  EXPECT_NE(msg.find("'w' is Float in the file but Double"), std::string::npos) << msg;

  Tensor t;
  msg = expect_throw<kiln::ValueError>([&] { in.read("missing", t); });
  EXPECT_NE(msg.find(file), std::string::npos) << msg;
  EXPECT_NE(msg.find("no tensor entry 'missing'"), std::string::npos) << msg;
  std::int64_t i = 0;
  msg = expect_throw<kiln::ValueError>([&] { in.read("n", i); });
  EXPECT_NE(msg.find("no int64 entry 'n'"), std::string::npos) << msg;
  EXPECT_FALSE(in.try_read("n", t));
  EXPECT_FALSE(t.defined());

  torch::serialize::OutputArchive bad;
  msg = expect_throw<kiln::ValueError>([&] { bad.write("u", Tensor()); });
  EXPECT_NE(msg.find("'u' is an undefined tensor"), std::string::npos) << msg;
}

}  // namespace
