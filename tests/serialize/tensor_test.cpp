// torch::save / torch::load of tensors and lists of tensors, and the archive
// classes they are built on: values, dtypes and shapes come back exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

#include <kiln/torch.h>

#include "trace/strided_read.h"

#include "tests/serialize/checkpoint_files.h"

namespace {

using kiln::Tensor;

// Values every dtype holds exactly, given through double; bool gets 0/1.
Tensor sample(torch::ScalarType dtype, std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  std::vector<double> values;
  for (std::int64_t i = 0; i < n; ++i)
    values.push_back(dtype == torch::kBool ? double(i % 3 == 1) : (i % 2 ? -1.0 : 1.0) * (0.25 * double(i) + 3));
  return torch::tensor(values, torch::kFloat64).reshape(shape).to(dtype);
}

void expect_same(const Tensor& got, const Tensor& want) {
  ASSERT_TRUE(got.defined());
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(got.sizes().vec(), want.sizes().vec());
  EXPECT_EQ(got.to_vector<double>(), want.to_vector<double>());
}

TEST(SerializeTensor, EveryDtypeRoundTrips) {
  ckpt::ScratchDir dir;
  for (torch::ScalarType dtype : {torch::kBool, torch::kInt32, torch::kInt64, torch::kFloat32, torch::kFloat64}) {
    SCOPED_TRACE(torch::to_string(dtype));
    for (const std::vector<std::int64_t>& shape : std::vector<std::vector<std::int64_t>>{{}, {0}, {5}, {2, 3, 4}}) {
      const Tensor t = sample(dtype, shape);
      torch::save(t, dir.path("t.kiln"));
      Tensor back;
      torch::load(back, dir.path("t.kiln"));
      expect_same(back, t);
    }
  }
}

TEST(SerializeTensor, ExtremeValuesComeBackBitForBit) {
  ckpt::ScratchDir dir;
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor d = torch::tensor({1.0 / 3, -0.0, inf, -inf, std::numeric_limits<double>::denorm_min(), 1e308});
  const Tensor nan = torch::tensor({std::nan("")}, torch::kFloat32);
  const Tensor big = torch::tensor({std::numeric_limits<std::int64_t>::min(), (std::int64_t{1} << 62) + 1});
  torch::save(std::vector<Tensor>{d, nan, big}, dir.path("x.kiln"));
  std::vector<Tensor> back;
  torch::load(back, dir.path("x.kiln"));
  ASSERT_EQ(back.size(), 3u);
  const std::vector<double> want = d.to_vector<double>(), got = back[0].to_vector<double>();
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(double)), 0) << i;
  EXPECT_TRUE(std::isnan(back[1].item<float>()));
  EXPECT_EQ(back[2].to_vector<std::int64_t>(), big.to_vector<std::int64_t>());
}

TEST(SerializeTensor, NonContiguousTensorsAreSavedInRowMajorOrder) {
  ckpt::ScratchDir dir;
  const Tensor base = sample(torch::kFloat32, {3, 4});
  const std::vector<Tensor> views = {base.t(), base.slice(1, 0, 4, 2), base.narrow(0, 1, 1).expand({3, 4}),
                                     sample(torch::kInt64, {2, 3, 4}).permute({2, 0, 1})};
  for (const Tensor& v : views) ASSERT_FALSE(v.is_contiguous());
  torch::save(views, dir.path("views.kiln"));
  std::vector<Tensor> back;
  torch::load(back, dir.path("views.kiln"));
  ASSERT_EQ(back.size(), views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    expect_same(back[i], views[i]);
    EXPECT_TRUE(back[i].is_contiguous());
  }
}

TEST(SerializeTensor, PendingTensorsAreComputedBeforeSaving) {
  ckpt::ScratchDir dir;
  // Recorded, never read: save settles them. The reference is a plain loop.
  const Tensor x = torch::arange(6, torch::kFloat64).reshape({2, 3});
  const Tensor pending = (x * 3 + 1).exp().log();
  const Tensor pending_view = (x - 2).t();
  ASSERT_FALSE(kiln::trace::is_settled(*pending.impl()));
  ASSERT_FALSE(kiln::trace::is_settled(*pending_view.impl()));
  torch::save(std::vector<Tensor>{pending, pending_view}, dir.path("p.kiln"));
  std::vector<Tensor> back;
  torch::load(back, dir.path("p.kiln"));
  ASSERT_EQ(back.size(), 2u);
  std::vector<double> want, want_t;
  for (int i = 0; i < 6; ++i) want.push_back(std::log(std::exp(3.0 * i + 1)));
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 2; ++r) want_t.push_back(double(r * 3 + c) - 2);
  EXPECT_EQ(back[0].to_vector<double>(), want);
  EXPECT_EQ(back[1].sizes().vec(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(back[1].to_vector<double>(), want_t);
}

TEST(SerializeTensor, LoadedTensorsAreNewLeavesWithoutGrad) {
  ckpt::ScratchDir dir;
  const Tensor w = torch::ones({2}).requires_grad_(true);
  torch::save(w * 2, dir.path("w.kiln"));
  Tensor back = torch::zeros({7});
  const Tensor before = back;
  torch::load(back, dir.path("w.kiln"));
  EXPECT_FALSE(back.is_same(before));
  EXPECT_FALSE(back.requires_grad());
  EXPECT_EQ(back.to_vector<double>(), (std::vector<double>{2, 2}));
}

TEST(SerializeTensor, SavingLeavesOnlyTheFile) {
  ckpt::ScratchDir dir;
  torch::save(torch::ones({3}), dir.path("a.kiln"));
  torch::save(torch::zeros({4}), dir.path("a.kiln"));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.root())) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"a.kiln"});
  Tensor back;
  torch::load(back, dir.path("a.kiln"));
  EXPECT_EQ(back.to_vector<double>(), (std::vector<double>{0, 0, 0, 0}));
}

TEST(SerializeTensor, LoadingAListIntoATensorIsAValueError) {
  ckpt::ScratchDir dir;
  torch::save(std::vector<Tensor>{torch::ones({1}), torch::ones({2})}, dir.path("two.kiln"));
  Tensor t;
  try {
    torch::load(t, dir.path("two.kiln"));
    FAIL() << "expected ValueError";
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path("two.kiln")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("holds 2 entries"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(t.defined());
}

}  // namespace
