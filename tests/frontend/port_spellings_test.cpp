// LibTorch spellings that ported programs use (LibTorch's own C++ DCGAN and
// distributed MNIST examples among them): assignment into a temporary
// tensor writes values, data(), in-place comparisons, uniform_ / normal_,
// the short dtype names and torch::str.
#include <gtest/gtest.h>

#include <vector>

#include <kiln/torch.h>

namespace {

using kiln::Tensor;
using kiln::indexing::Slice;

std::vector<double> values(const Tensor& t) { return t.to(torch::kFloat64).contiguous().to_vector<double>(); }

TEST(PortSpellings, AssigningToATemporaryWritesThroughItsView) {
  Tensor x = torch::zeros({2, 3});
  x[0] = 5;
  x[1][2] = torch::tensor(7.0);
  x.index({Slice(), 0}) = torch::tensor({1.0, 2.0});
  EXPECT_EQ(values(x), (std::vector<double>{1, 5, 5, 2, 0, 7}));
  Tensor y = x;  // a named tensor is rebound, not written
  y = torch::ones({1});
  EXPECT_EQ(x.numel(), 6);
  EXPECT_EQ(values(y), (std::vector<double>{1}));
}

TEST(PortSpellings, DataIsTheSameValuesOutsideAutogradAndAssignmentToItWritesThem) {
  Tensor w = torch::ones({3}, torch::requires_grad());
  (w * w).sum().backward();
  EXPECT_FALSE(w.grad().data().requires_grad());
  EXPECT_TRUE(w.data().is_same_storage(w));
  // distributed MNIST averages gradients this way
  w.grad().data() = w.grad().data() / 2;
  EXPECT_EQ(values(w.grad()), (std::vector<double>{1, 1, 1}));
}

TEST(PortSpellings, InPlaceComparisonsKeepTheTensorsDtype) {
  Tensor guess = torch::tensor({1, 2, 3, 4}, torch::kInt64), target = torch::tensor({1, 0, 3, 0}, torch::kInt64);
  EXPECT_EQ(torch::sum(guess.eq_(target)).item<std::int64_t>(), 2);
  EXPECT_EQ(guess.dtype(), torch::kInt64);
  Tensor f = torch::tensor({1.0, 2.0, 3.0});
  f.gt_(1.5);
  EXPECT_EQ(values(f), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values(torch::tensor({1.0, 2.0}).ne_(torch::tensor({1.0, 3.0}))), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(torch::tensor({1.0, 2.0}).le_(1.0)), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(torch::tensor({1.0, 2.0}).lt_(2.0)), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(torch::tensor({1.0, 2.0}).ge_(2.0)), (std::vector<double>{0, 1}));
}

TEST(PortSpellings, UniformAndNormalFillInPlaceFromTheSeededGenerator) {
  torch::manual_seed(3);
  Tensor u = torch::empty({4096});
  u.uniform_(0.8, 1.0);
  EXPECT_GE(u.min().item<float>(), 0.8f);
  EXPECT_LT(u.max().item<float>(), 1.0f);
  EXPECT_NEAR(u.mean().item<float>(), 0.9, 0.01);
  Tensor n = torch::empty({4096}, torch::kFloat64).normal_(2, 0.5);
  EXPECT_NEAR(n.mean().item<double>(), 2, 0.05);
  EXPECT_NEAR(n.std().item<double>(), 0.5, 0.05);
  torch::manual_seed(3);
  EXPECT_EQ(values(torch::empty({4096}).uniform_(0.8, 1.0)), values(u));
  EXPECT_THROW(torch::empty({2}, torch::kInt64).uniform_(), kiln::DtypeError);
  EXPECT_THROW(torch::empty({2}).uniform_(1, 0), kiln::ValueError);
  EXPECT_THROW(torch::empty({2}).normal_(0, -1), kiln::ValueError);
  EXPECT_THROW(torch::empty({2}, torch::requires_grad()).uniform_(), kiln::AutogradError);
}

TEST(PortSpellings, ShortDtypeNamesAndStr) {
  EXPECT_EQ(torch::kF32, torch::kFloat32);
  EXPECT_EQ(torch::kF64, torch::kFloat64);
  EXPECT_EQ(torch::kI32, torch::kInt32);
  EXPECT_EQ(torch::kI64, torch::kInt64);
  EXPECT_EQ(torch::str("dcgan-sample-", 3, ".pt"), "dcgan-sample-3.pt");
  EXPECT_EQ(torch::tensor(2.5).dim(), 0);
  EXPECT_EQ(torch::tensor(2.5).dtype(), torch::kFloat32);
  EXPECT_EQ(torch::tensor(3).dtype(), torch::kInt64);
  EXPECT_EQ(torch::tensor(true).item<bool>(), true);
  EXPECT_EQ(torch::tensor({2.5}).dim(), 1);  // a braced list stays a list
}

}  // namespace
