// index_select, gather, cat, stack, clone and to(dtype) against kref, for
// every dtype, with non-contiguous sources/indices and zero-size pieces.
// All results are exact (copies and conversions).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using Sizes = std::vector<std::int64_t>;

class Indexing : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(Indexing, IndexSelectAlongEveryDimWithRepeatsAndLongOrIntIndex) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref::iota({3, 4, 5}, -20), dt);
  Tensor x = kref::make(a, dt);
  const std::vector<std::int64_t> idx = {2, 0, 2};
  for (std::int64_t d : {0, 1, 2, -1}) {
    SCOPED_TRACE("dim " + std::to_string(d));
    Tensor out = x.index_select(d, kiln::tensor(idx));
    EXPECT_EQ(out.dtype(), dt);
    EXPECT_TRUE(kref::close(out, kref::index_select(a, d, idx), kref::kExact));
    Tensor out32 = kiln::index_select(x, d, kiln::tensor(idx).to(kiln::kInt32));
    EXPECT_TRUE(kref::close(out32, kref::index_select(a, d, idx), kref::kExact));
  }
  EXPECT_EQ(x.index_select(1, kiln::zeros({0}, kiln::kInt64)).sizes().vec(), (Sizes{3, 0, 5}));
}

TEST_P(Indexing, IndexSelectFromATransposedSourceWithAStridedIndex) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref::iota({4, 6}), dt);
  Tensor x = kref::make(a, dt);
  Tensor idx = kiln::tensor(std::vector<std::int64_t>{5, 9, 1, 9, 3, 9}).slice(0, 0, 6, 2);  // 5, 1, 3
  EXPECT_TRUE(kref::close(x.t().index_select(0, idx), kref::index_select(kref::transpose(a, 0, 1), 0, {5, 1, 3}),
                          kref::kExact));
}

TEST_P(Indexing, GatherAlongEachDim) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref::iota({3, 4}, 1), dt);
  Tensor x = kref::make(a, dt);
  Ref i0({2, 4}, {2, 0, 1, 2, 0, 0, 2, 1});  // rows, index shape smaller in dim 0
  EXPECT_TRUE(kref::close(x.gather(0, kref::make(i0, kiln::kInt64)), kref::gather(a, 0, i0), kref::kExact));
  Ref i1({3, 2}, {3, 0, 1, 1, 0, 2});
  EXPECT_TRUE(kref::close(kiln::gather(x, 1, kref::make(i1, kiln::kInt64)), kref::gather(a, 1, i1), kref::kExact));
  EXPECT_TRUE(kref::close(x.gather(-1, kref::make(i1, kiln::kInt64)), kref::gather(a, 1, i1), kref::kExact));
  // transposed source and transposed index
  Ref at = kref::transpose(a, 0, 1);  // [4, 3]
  Ref it({3, 4}, {0, 1, 2, 0, 2, 2, 1, 0, 1, 0, 0, 2});
  Tensor idx_t = kref::make(it, kiln::kInt64).t();  // [4, 3]
  EXPECT_TRUE(kref::close(x.t().gather(1, idx_t), kref::gather(at, 1, kref::transpose(it, 0, 1)), kref::kExact));
}

TEST_P(Indexing, CatAlongEveryDimIncludingZeroSizePieces) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref::iota({2, 3}), dt), b = kref::cast(Ref::iota({2, 3}, 10), dt);
  Ref c = kref::cast(Ref::iota({1, 3}, 20), dt);
  Tensor ta = kref::make(a, dt), tb = kref::make(b, dt), tc = kref::make(c, dt);
  Tensor out0 = kiln::cat({ta, tb, tc});
  EXPECT_EQ(out0.dtype(), dt);
  EXPECT_TRUE(kref::close(out0, kref::cat({a, b, c}, 0), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::cat({ta, tb}, 1), kref::cat({a, b}, 1), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::cat({ta, tb}, -1), kref::cat({a, b}, 1), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::cat({ta, kiln::zeros({0, 3}, dt), tc}), kref::cat({a, c}, 0), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::cat({ta}), a, kref::kExact));
  // non-contiguous pieces
  EXPECT_TRUE(kref::close(kiln::cat({ta.t(), tb.t()}, 1), kref::cat({kref::transpose(a, 0, 1), kref::transpose(b, 0, 1)}, 1),
                          kref::kExact));
}

TEST_P(Indexing, StackAtEveryPosition) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref::iota({2, 3}), dt), b = kref::cast(Ref::iota({2, 3}, 10), dt);
  Tensor ta = kref::make(a, dt), tb = kref::make(b, dt);
  for (std::int64_t d : {0, 1, 2, -1}) {
    SCOPED_TRACE("dim " + std::to_string(d));
    Tensor s = kiln::stack({ta, tb}, d);
    EXPECT_EQ(s.dim(), 3);
    EXPECT_TRUE(kref::close(s, kref::stack({a, b}, d), kref::kExact));
  }
  EXPECT_TRUE(kref::close(kiln::stack({ta.t(), tb.t()}), kref::stack({kref::transpose(a, 0, 1), kref::transpose(b, 0, 1)}, 0),
                          kref::kExact));
}

TEST_P(Indexing, CloneIsAnIndependentCopy) {
  const kiln::ScalarType dt = GetParam();
  Ref a = kref::cast(Ref::iota({2, 3}), dt);
  Tensor x = kref::make(a, dt);
  Tensor c = x.clone();
  EXPECT_FALSE(c.is_same_storage(x));
  EXPECT_EQ(c.dtype(), dt);
  x.fill_(1);
  EXPECT_TRUE(kref::close(c, a, kref::kExact));
  EXPECT_TRUE(kref::close(kiln::clone(x.t()), Ref::filled({3, 2}, 1), kref::kExact));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Indexing,
                         ::testing::Values(kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64, kiln::kBool),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

TEST(ZeroDim, GatherAndIndexSelectOnZeroDimOperands) {
  // LibTorch: gather of a zero-dim source with a zero-dim index is that element.
  Tensor g = kiln::scalar_tensor(3.0, kiln::kFloat64).gather(0, kiln::scalar_tensor(0, kiln::kInt64));
  EXPECT_EQ(g.dim(), 0);
  EXPECT_EQ(g.item<double>(), 3.0);
  Tensor s = kiln::arange(5).index_select(0, kiln::scalar_tensor(3, kiln::kInt64));
  EXPECT_TRUE(kref::equals(s, {1}, {3}));
  Tensor z = kiln::scalar_tensor(2.5, kiln::kFloat64).index_select(0, kiln::zeros({1}, kiln::kInt64));
  EXPECT_EQ(z.numel(), 1);
  EXPECT_EQ(z.item<double>(), 2.5);
}

TEST(CatPromotion, MixedDtypesPromote) {
  Tensor out = kiln::cat({kiln::tensor({1, 2}, kiln::kInt32), kiln::tensor({0.5f})});
  EXPECT_EQ(out.dtype(), kiln::kFloat32);
  EXPECT_TRUE(kref::equals(out, {3}, {1, 2, 0.5}));
}

TEST(To, EveryDtypePairConvertsLikeAStaticCast) {
  const std::vector<double> vals = {-2.75, -1, 0, 0.5, 1, 3.9, 100};
  const kiln::ScalarType all[] = {kiln::kBool, kiln::kInt32, kiln::kInt64, kiln::kFloat32, kiln::kFloat64};
  for (kiln::ScalarType from : all) {
    Ref src = kref::cast(Ref({7}, vals), from);
    Tensor x = kref::make(src, from);
    for (kiln::ScalarType to : all) {
      SCOPED_TRACE(std::string(kiln::to_string(from)) + " -> " + kiln::to_string(to));
      Tensor y = x.to(to);
      EXPECT_EQ(y.dtype(), to);
      EXPECT_TRUE(kref::close(y, kref::cast(src, to), kref::kExact));
    }
  }
}

TEST(To, ConvertsNonContiguousInputAndKeepsShape) {
  Tensor x = kiln::arange(6, kiln::kFloat32).reshape({2, 3}).t();
  Tensor y = x.to(kiln::kInt64);
  EXPECT_EQ(y.sizes().vec(), (Sizes{3, 2}));
  EXPECT_TRUE(kref::equals(y, {3, 2}, {0, 3, 1, 4, 2, 5}));
}

TEST(To, SameDtypeReturnsTheTensorItself) {
  // LibTorch: x.to(x.dtype()) is x (no copy), so writes through it are seen.
  Tensor x = kiln::zeros({3});
  Tensor y = x.to(kiln::kFloat32);
  EXPECT_TRUE(y.is_same_storage(x));
}

TEST(To, InfinityAndNaNSurviveFloatConversions) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = kiln::tensor(std::vector<double>{inf, -inf, NAN}, kiln::kFloat64);
  EXPECT_TRUE(kref::close(x.to(kiln::kFloat32), Ref({3}, {inf, -inf, NAN}), kref::kExact));
  EXPECT_TRUE(kref::equals(x.to(kiln::kBool), {3}, {1, 1, 1}));
}

}  // namespace
