// scatter_add against a loop: every dim, repeated positions, non-contiguous
// operands, every dtype, in place; its errors at the call.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;
using V = std::vector<std::int64_t>;

TEST(ScatterAdd, MatchesALoopAlongEachDim) {
  // self [3, 4], index [2, 3] (smaller than src [2, 4] and than self), repeats.
  const V index = {2, 0, 2, 1, 1, 3};
  for (std::int64_t dim : {0, 1}) {
    Tensor self = kiln::arange(12).view({3, 4});
    Tensor src = kiln::arange(100, 108).view({2, 4});
    Tensor idx = kiln::tensor(index).view({2, 3});
    if (dim == 0) idx = idx.clamp(0, 2);
    V want = self.to_vector<std::int64_t>();
    const V iv = idx.to_vector<std::int64_t>(), sv = src.to_vector<std::int64_t>();
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 3; ++j) {
        const std::int64_t k = iv[i * 3 + j];
        want[dim == 0 ? k * 4 + j : i * 4 + k] += sv[i * 4 + j];
      }
    EXPECT_EQ(self.scatter_add(dim, idx, src).to_vector<std::int64_t>(), want) << dim;
    // Through transposed views of the same values.
    Tensor t = self.t().contiguous().t(), s = src.t().contiguous().t(), x = idx.t().contiguous().t();
    EXPECT_EQ(kiln::scatter_add(t, dim, x, s).to_vector<std::int64_t>(), want) << dim;
  }
}

TEST(ScatterAdd, EveryDtypeAndInPlace) {
  Tensor idx = kiln::tensor({1, 1, 0});
  EXPECT_EQ(kiln::zeros({2}).scatter_add(0, idx, kiln::tensor({0.5f, 0.25f, 2.0f})).to_vector<float>(),
            (std::vector<float>{2.0f, 0.75f}));
  EXPECT_EQ(kiln::zeros({2}, kiln::kInt32).scatter_add(0, idx, kiln::tensor({1, 2, 3}, kiln::kInt32))
                .to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{3, 3}));
  EXPECT_EQ(kiln::zeros({2}, kiln::kBool).scatter_add(0, idx, kiln::tensor({true, false, false})).to_vector<bool>(),
            (std::vector<bool>{false, true}));
  Tensor x = kiln::ones({2, 2}, kiln::kFloat64);
  Tensor row = x.select(0, 1);
  row.scatter_add_(0, kiln::tensor({0, 0}), kiln::tensor({1.0, 2.0}, kiln::kFloat64));
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{1, 1, 4, 1}));
}

TEST(ScatterAdd, BadArgumentsAreErrorsAtTheCall) {
  Tensor self = kiln::zeros({3, 4});
  EXPECT_THROW((void)self.scatter_add(1, kiln::tensor({{0, 1}}), kiln::ones({1, 2}, kiln::kFloat64)),
               kiln::DtypeError);
  EXPECT_THROW((void)self.scatter_add(1, kiln::tensor({{0, 1}}, kiln::kInt32), kiln::ones({1, 2})), kiln::DtypeError);
  EXPECT_THROW((void)self.scatter_add(1, kiln::tensor({0, 1}), kiln::ones({2})), kiln::ShapeError);
  EXPECT_THROW((void)self.scatter_add(1, kiln::zeros({1, 3}, kiln::kInt64), kiln::ones({1, 2})), kiln::ShapeError);
  EXPECT_THROW((void)self.scatter_add(2, kiln::zeros({1, 1}, kiln::kInt64), kiln::ones({1, 1})), kiln::IndexError);
  try {
    (void)self.scatter_add(1, kiln::tensor({{0, 4}}), kiln::ones({1, 2}));
    FAIL() << "no error";
  } catch (const kiln::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("[scatter_add] index 4 is out of bounds for dimension 1 with size 4"),
              std::string::npos)
        << e.what();
  }
  // A pending index is checked when its kernel runs.
  Tensor pending = kiln::tensor({{0, 3}}) + 2;
  Tensor y = self.scatter_add(1, pending, kiln::ones({1, 2}));
  EXPECT_THROW((void)y.to_vector<float>(), kiln::IndexError);
}

}  // namespace
