// torch::save / torch::load of modules: values copied in place into a fresh
// module of the same architecture, and every mismatch an error that names the
// file, the entry and both shapes, with nothing changed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/serialize/checkpoint_files.h"

namespace {

using ckpt::expect_throw;
using kiln::Tensor;

struct NetImpl : torch::nn::Module {
  explicit NetImpl(std::int64_t hidden = 8) {
    fc1 = register_module("fc1", torch::nn::Linear(4, hidden));
    fc2 = register_module("fc2", torch::nn::Linear(hidden, 3));
    scale = register_buffer("scale", torch::rand({3}, torch::kFloat32));
    steps = register_buffer("steps", torch::tensor({std::int64_t{5}}));
  }
  Tensor forward(const Tensor& x) { return fc2(torch::relu(fc1(x))) * scale; }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  Tensor scale, steps;
};
TORCH_MODULE(Net);

std::vector<std::vector<double>> values_of(const torch::nn::Module& m) {
  std::vector<std::vector<double>> out;
  for (const auto& item : m.named_parameters()) out.push_back(item.value().to_vector<double>());
  for (const auto& item : m.named_buffers()) out.push_back(item.value().to_vector<double>());
  return out;
}

TEST(SerializeModule, FreshModuleGivesIdenticalOutputs) {
  ckpt::ScratchDir dir;
  torch::manual_seed(1);
  Net saved;
  torch::manual_seed(2);
  Net fresh;
  const Tensor x = torch::randn({5, 4});
  ASSERT_NE(fresh->forward(x).to_vector<float>(), saved->forward(x).to_vector<float>());
  torch::save(saved, dir.path("net.kiln"));

  const Tensor weight_before = fresh->fc1->weight;
  torch::load(fresh, dir.path("net.kiln"));
  EXPECT_EQ(fresh->forward(x).to_vector<float>(), saved->forward(x).to_vector<float>());
  EXPECT_EQ(values_of(*fresh), values_of(*saved));
  EXPECT_TRUE(fresh->fc1->weight.is_same(weight_before));
  for (const auto& item : fresh->named_parameters()) {
    EXPECT_TRUE(item.value().requires_grad()) << item.key();
    EXPECT_TRUE(item.value().is_leaf()) << item.key();
  }
  EXPECT_FALSE(fresh->scale.requires_grad());
  EXPECT_EQ(fresh->steps.item<std::int64_t>(), 5);
}

TEST(SerializeModule, ArchivesHoldDottedNamesAndLoadThroughSharedPtrs) {
  ckpt::ScratchDir dir;
  auto net = std::make_shared<NetImpl>();
  torch::save(net, dir.path("net.kiln"));
  torch::serialize::InputArchive in;
  in.load_from(dir.path("net.kiln"));
  EXPECT_EQ(in.keys(),
            (std::vector<std::string>{"fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight", "scale", "steps"}));
  auto other = std::make_shared<NetImpl>();
  torch::load(other, dir.path("net.kiln"));
  EXPECT_EQ(values_of(*other), values_of(*net));
  // A plain Module& works too, through Module::save / Module::load.
  torch::serialize::OutputArchive out;
  static_cast<const torch::nn::Module&>(*net).save(out);
  EXPECT_EQ(out.keys(), in.keys());
}

class SerializeModuleMismatch : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path("net.kiln");
    torch::save(Net(8), file_);
  }
  // Loads file_ into `target`, expecting E; checks the target is unchanged.
  template <class E>
  std::string load_error(torch::nn::Module& target) {
    const auto before = values_of(target);
    const std::string msg = expect_throw<E>([&] { torch::load(target, file_); });
    EXPECT_EQ(values_of(target), before);
    EXPECT_NE(msg.find(file_), std::string::npos) << msg;
    return msg;
  }
  ckpt::ScratchDir dir_;
  std::string file_;
};

TEST_F(SerializeModuleMismatch, ShapeMismatchNamesBothShapes) {
  Net other(6);
  const std::string msg = load_error<kiln::ShapeError>(*other);
  EXPECT_NE(msg.find("entry 'fc1.weight' has shape [8, 4] in the file but [6, 4] in the module"), std::string::npos)
      << msg;
}

TEST_F(SerializeModuleMismatch, DtypeMismatch) {
  Net other(8);
  other->to(torch::kFloat64);
  const std::string msg = load_error<kiln::DtypeError>(*other);
  EXPECT_NE(msg.find("entry 'fc1.weight' is Float [8, 4] in the file but Double [8, 4] in the module"),
            std::string::npos)
      << msg;
}

TEST_F(SerializeModuleMismatch, MissingEntry) {
  struct Bigger : NetImpl {
    Bigger() { extra = register_parameter("extra", torch::zeros({2, 2})); }
    Tensor extra;
  } bigger;
  const std::string msg = load_error<kiln::ValueError>(bigger);
  EXPECT_NE(msg.find("entry 'extra' (Float [2, 2] in the module) is missing from the file"), std::string::npos) << msg;
}

TEST_F(SerializeModuleMismatch, ExtraEntry) {
  torch::nn::Linear fc1(4, 8);
  struct OnlyFc1 : torch::nn::Module {
    explicit OnlyFc1(torch::nn::Linear l) { register_module("fc1", l); }
  } smaller(fc1);
  const std::string msg = load_error<kiln::ValueError>(smaller);
  EXPECT_NE(msg.find("entry 'fc2.bias' (Float [3] in the file) is not in the module"), std::string::npos) << msg;
}

}  // namespace
