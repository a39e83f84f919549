// masked_fill (out of place, in place, through views) and one_hot against
// loops; their errors; masked_fill's gradient.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;
using V = std::vector<std::int64_t>;

TEST(MaskedFill, FillsWhereTheMaskHoldsAndBroadcasts) {
  Tensor x = kiln::arange(6).view({2, 3});
  Tensor m = kiln::tensor({true, false, true});
  EXPECT_EQ(x.masked_fill(m, -1).to_vector<std::int64_t>(), (V{-1, 1, -1, -1, 4, -1}));
  EXPECT_EQ(x.masked_fill(m, 2.7).dtype(), kiln::kInt64);  // keeps x's dtype, truncating
  EXPECT_EQ(x.masked_fill(m, 2.7).to_vector<std::int64_t>()[0], 2);
  Tensor f = kiln::zeros({2, 3});
  EXPECT_EQ(kiln::masked_fill(f, x > 3, kiln::scalar_tensor(5.0)).to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0, 5, 5}));
  // In place, through a view: the base sees the write.
  Tensor row = f.select(0, 0);
  row.masked_fill_(m, 9);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{9, 0, 9, 0, 0, 0}));
  f.masked_fill_(f == 0, kiln::scalar_tensor(1.5));
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{9, 1.5, 9, 1.5, 1.5, 1.5}));
}

TEST(MaskedFill, GradientIsZeroWhereFilled) {
  Tensor w = kiln::tensor({1.0, 2.0, 3.0}, kiln::kFloat64).requires_grad_();
  (w.masked_fill(w > 1.5, 0.0) * 3).sum().backward();
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{3, 0, 0}));
}

TEST(MaskedFill, RejectsNonBoolMasksAndNonScalarValues) {
  Tensor x = kiln::zeros({2, 3});
  try {
    (void)x.masked_fill(kiln::ones({3}, kiln::kInt64), 1);
    FAIL() << "an integer mask was accepted";
  } catch (const kiln::DtypeError& e) {
    EXPECT_NE(std::string(e.what()).find("only supports boolean masks, but got mask with dtype Long"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)x.masked_fill(x > 0, kiln::ones({2})), kiln::ShapeError);
  EXPECT_THROW(x.masked_fill_(kiln::ones({3}, kiln::kInt32), 1), kiln::DtypeError);
}

TEST(OneHot, MatchesLoopsAndInfersTheClassCount) {
  Tensor labels = kiln::tensor({2, 0, 1, 2});
  Tensor h = kiln::one_hot(labels);
  ASSERT_EQ(h.sizes().vec(), (V{4, 3}));
  EXPECT_EQ(h.dtype(), kiln::kInt64);
  EXPECT_EQ(h.to_vector<std::int64_t>(), (V{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  Tensor h5 = kiln::nn::functional::one_hot(labels.view({2, 2}), 5);
  ASSERT_EQ(h5.sizes().vec(), (V{2, 2, 5}));
  V want(20, 0);
  const V l = {2, 0, 1, 2};
  for (std::size_t i = 0; i < l.size(); ++i) want[i * 5 + l[i]] = 1;
  EXPECT_EQ(h5.to_vector<std::int64_t>(), want);
  EXPECT_EQ(kiln::one_hot(kiln::zeros({0}, kiln::kInt64), 4).sizes().vec(), (V{0, 4}));
}

TEST(OneHot, BadClassesAreErrors) {
  EXPECT_THROW((void)kiln::one_hot(kiln::tensor({0, 3}), 3), kiln::ValueError);
  EXPECT_THROW((void)kiln::one_hot(kiln::tensor({-1, 1})), kiln::ValueError);
  EXPECT_THROW((void)kiln::one_hot(kiln::zeros({0}, kiln::kInt64)), kiln::ValueError);
  EXPECT_THROW((void)kiln::one_hot(kiln::tensor({1.0})), kiln::DtypeError);
  EXPECT_THROW((void)kiln::one_hot(kiln::tensor({1}), -2), kiln::ValueError);
}

}  // namespace
