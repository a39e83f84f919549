// Shape ops and views: view, reshape, flatten, squeeze, unsqueeze, permute,
// transpose, t, expand, expand_as, contiguous, slice, narrow, select, split,
// chunk. Shapes, strides where LibTorch fixes them, values (exact), and
// whether the result shares storage with its input as in LibTorch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using Sizes = std::vector<std::int64_t>;

Tensor iota(const Sizes& s, kiln::ScalarType dt = kiln::kFloat32) { return kref::make(Ref::iota(s), dt); }

TEST(View, ReshapesContiguousTensorAndInfersMinusOne) {
  Tensor x = iota({2, 3, 4});
  Tensor v = x.view({4, -1});
  EXPECT_EQ(v.sizes().vec(), (Sizes{4, 6}));
  EXPECT_TRUE(v.is_same_storage(x));
  EXPECT_TRUE(kref::close(v, Ref::iota({4, 6}), kref::kExact));
  EXPECT_EQ(x.view({24}).strides().vec(), (Sizes{1}));
  EXPECT_EQ(x.view({-1}).dim(), 1);
}

TEST(View, ViewOfATransposeThatKeepsRowsContiguous) {
  // [2, 3, 4] -> permute(1, 0, 2) is [3, 2, 4]; merging the last two dims is not viewable,
  // but splitting the last one is.
  Tensor x = iota({2, 3, 4});
  Tensor p = x.permute({1, 0, 2});
  Tensor v = p.view({3, 2, 2, 2});
  EXPECT_TRUE(v.is_same_storage(x));
  EXPECT_TRUE(kref::close(v, kref::permute(Ref::iota({2, 3, 4}), {1, 0, 2}).reshape({3, 2, 2, 2}), kref::kExact));
}

TEST(Reshape, IsAViewWhenPossibleAndACopyOtherwise) {
  Tensor x = iota({3, 4});
  Tensor r = x.reshape({2, 6});
  EXPECT_TRUE(r.is_same_storage(x));
  EXPECT_TRUE(kref::close(r, Ref::iota({2, 6}), kref::kExact));
  Tensor rt = x.t().reshape({12});
  EXPECT_FALSE(rt.is_same_storage(x));
  EXPECT_TRUE(kref::close(rt, kref::transpose(Ref::iota({3, 4}), 0, 1).reshape({12}), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::reshape(x, {-1, 2}), Ref::iota({6, 2}), kref::kExact));
}

TEST(Reshape, ZeroSizeAndZeroDim) {
  Tensor e = kiln::zeros({0, 3});
  EXPECT_EQ(e.reshape({3, 0}).sizes().vec(), (Sizes{3, 0}));
  EXPECT_EQ(e.reshape({0, 1, 3}).sizes().vec(), (Sizes{0, 1, 3}));
  EXPECT_EQ(e.reshape({-1, 3}).sizes().vec(), (Sizes{0, 3}));
  Tensor s = kiln::scalar_tensor(4.0, kiln::kFloat64);
  EXPECT_EQ(s.reshape({1, 1}).sizes().vec(), (Sizes{1, 1}));
  EXPECT_EQ(kiln::ones({1, 1}).reshape({}).dim(), 0);
}

TEST(Flatten, RangesOfDims) {
  Tensor x = iota({2, 3, 4, 5});
  EXPECT_EQ(x.flatten().sizes().vec(), (Sizes{120}));
  EXPECT_EQ(x.flatten(1).sizes().vec(), (Sizes{2, 60}));
  EXPECT_EQ(kiln::flatten(x, 1, 2).sizes().vec(), (Sizes{2, 12, 5}));
  EXPECT_EQ(x.flatten(-2, -1).sizes().vec(), (Sizes{2, 3, 20}));
  EXPECT_TRUE(x.flatten(1, 2).is_same_storage(x));
  EXPECT_TRUE(kref::close(x.transpose(0, 3).flatten(),
                          kref::transpose(Ref::iota({2, 3, 4, 5}), 0, 3).reshape({120}), kref::kExact));
  EXPECT_EQ(kiln::scalar_tensor(1.0).flatten().sizes().vec(), (Sizes{1}));
}

TEST(Squeeze, AllOrOneDim) {
  Tensor x = iota({1, 3, 1, 2});
  EXPECT_EQ(x.squeeze().sizes().vec(), (Sizes{3, 2}));
  EXPECT_EQ(x.squeeze(0).sizes().vec(), (Sizes{3, 1, 2}));
  EXPECT_EQ(kiln::squeeze(x, -2).sizes().vec(), (Sizes{1, 3, 2}));
  EXPECT_EQ(x.squeeze(1).sizes().vec(), (Sizes{1, 3, 1, 2}));  // not size 1: unchanged
  EXPECT_TRUE(x.squeeze().is_same_storage(x));
  EXPECT_TRUE(kref::close(x.squeeze(), Ref::iota({3, 2}), kref::kExact));
  EXPECT_EQ(kiln::squeeze(kiln::ones({1, 1})).dim(), 0);
}

TEST(Unsqueeze, EveryPositionIncludingNegative) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(x.unsqueeze(0).sizes().vec(), (Sizes{1, 2, 3}));
  EXPECT_EQ(x.unsqueeze(1).sizes().vec(), (Sizes{2, 1, 3}));
  EXPECT_EQ(x.unsqueeze(2).sizes().vec(), (Sizes{2, 3, 1}));
  EXPECT_EQ(kiln::unsqueeze(x, -1).sizes().vec(), (Sizes{2, 3, 1}));
  EXPECT_EQ(x.unsqueeze(-3).sizes().vec(), (Sizes{1, 2, 3}));
  EXPECT_TRUE(x.unsqueeze(1).is_same_storage(x));
  EXPECT_TRUE(x.unsqueeze(1).is_contiguous());
  EXPECT_TRUE(kref::close(x.t().unsqueeze(1), kref::transpose(Ref::iota({2, 3}), 0, 1).reshape({3, 1, 2}),
                          kref::kExact));
  EXPECT_EQ(kiln::scalar_tensor(1.0).unsqueeze(0).sizes().vec(), (Sizes{1}));
}

TEST(Permute, ValuesAndStrides) {
  Tensor x = iota({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(p.sizes().vec(), (Sizes{4, 2, 3}));
  EXPECT_EQ(p.strides().vec(), (Sizes{1, 12, 4}));
  EXPECT_FALSE(p.is_contiguous());
  EXPECT_TRUE(p.is_same_storage(x));
  EXPECT_TRUE(kref::close(p, kref::permute(Ref::iota({2, 3, 4}), {2, 0, 1}), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::permute(x, {-1, 1, 0}), kref::permute(Ref::iota({2, 3, 4}), {2, 1, 0}), kref::kExact));
}

TEST(Transpose, AnyPairAndTOnMatricesVectorsScalars) {
  Tensor x = iota({2, 3, 4});
  EXPECT_TRUE(kref::close(x.transpose(0, 2), kref::transpose(Ref::iota({2, 3, 4}), 0, 2), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::transpose(x, -1, -2), kref::transpose(Ref::iota({2, 3, 4}), 2, 1), kref::kExact));
  Tensor m = iota({2, 3});
  EXPECT_EQ(m.t().strides().vec(), (Sizes{1, 3}));
  EXPECT_TRUE(kref::close(kiln::t(m), kref::transpose(Ref::iota({2, 3}), 0, 1), kref::kExact));
  EXPECT_EQ(iota({4}).t().sizes().vec(), (Sizes{4}));
  EXPECT_EQ(kiln::scalar_tensor(1.0).t().dim(), 0);
  EXPECT_TRUE(kref::close(m.t().t(), Ref::iota({2, 3}), kref::kExact));
}

TEST(Expand, NewLeadingDimsSizeOneDimsAndMinusOne) {
  Tensor c = iota({3, 1});
  Tensor e = c.expand({2, 3, 4});
  EXPECT_EQ(e.sizes().vec(), (Sizes{2, 3, 4}));
  EXPECT_EQ(e.stride(0), 0);
  EXPECT_EQ(e.stride(2), 0);
  EXPECT_TRUE(e.is_same_storage(c));
  EXPECT_TRUE(kref::close(e, kref::expand(Ref::iota({3, 1}), {2, 3, 4}), kref::kExact));
  EXPECT_EQ(c.expand({-1, 5}).sizes().vec(), (Sizes{3, 5}));
  EXPECT_TRUE(kref::close(c.expand_as(kiln::zeros({3, 2})), kref::expand(Ref::iota({3, 1}), {3, 2}), kref::kExact));
  EXPECT_EQ(c.expand({3, 0}).numel(), 0);
  EXPECT_TRUE(kref::close(kiln::scalar_tensor(7.0).expand({2, 2}), Ref::filled({2, 2}, 7), kref::kExact));
}

TEST(Contiguous, CopiesOnlyWhenNeeded) {
  Tensor x = iota({3, 4});
  Tensor same = x.contiguous();
  EXPECT_TRUE(same.is_same_storage(x));
  Tensor c = x.t().contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.is_same_storage(x));
  EXPECT_EQ(c.strides().vec(), (Sizes{3, 1}));
  EXPECT_TRUE(kref::close(c, kref::transpose(Ref::iota({3, 4}), 0, 1), kref::kExact));
}

TEST(Slice, PythonSemanticsWithStepsNegativesAndClamping) {
  Tensor x = iota({10});
  Ref r = Ref::iota({10});
  EXPECT_TRUE(kref::close(x.slice(0, 2, 8, 3), kref::slice(r, 0, 2, 8, 3), kref::kExact));  // 2, 5
  EXPECT_TRUE(kref::close(x.slice(0, -3), kref::slice(r, 0, 7, 10), kref::kExact));
  EXPECT_TRUE(kref::close(x.slice(0, std::nullopt, -8), kref::slice(r, 0, 0, 2), kref::kExact));
  EXPECT_TRUE(kref::close(x.slice(0, 5, 100), kref::slice(r, 0, 5, 10), kref::kExact));
  EXPECT_EQ(x.slice(0, 7, 3).numel(), 0);
  EXPECT_EQ(x.slice(0, 20, 30).numel(), 0);
  EXPECT_TRUE(kref::close(x.slice(), r, kref::kExact));
  Tensor m = iota({4, 5});
  Tensor s = m.slice(1, 1, 5, 2);
  EXPECT_EQ(s.strides().vec(), (Sizes{5, 2}));
  EXPECT_TRUE(s.is_same_storage(m));
  EXPECT_TRUE(kref::close(s, kref::slice(Ref::iota({4, 5}), 1, 1, 5, 2), kref::kExact));
}

TEST(Narrow, ExactRangesIncludingNegativeStart) {
  Tensor m = iota({4, 5});
  Ref r = Ref::iota({4, 5});
  EXPECT_TRUE(kref::close(m.narrow(1, 1, 3), kref::slice(r, 1, 1, 4), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::narrow(m, 0, -2, 2), kref::slice(r, 0, 2, 4), kref::kExact));
  EXPECT_EQ(m.narrow(0, 4, 0).numel(), 0);
  EXPECT_TRUE(m.narrow(1, 1, 3).is_same_storage(m));
}

TEST(Select, RemovesTheDimAndWrapsNegativeIndex) {
  Tensor m = iota({3, 4, 2});
  Ref r = Ref::iota({3, 4, 2});
  EXPECT_TRUE(kref::close(m.select(0, 1), kref::select(r, 0, 1), kref::kExact));
  EXPECT_TRUE(kref::close(m.select(1, -1), kref::select(r, 1, 3), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::select(m, 2, 0), kref::select(r, 2, 0), kref::kExact));
  EXPECT_EQ(m.select(0, 0).select(0, 0).select(0, 1).dim(), 0);
  EXPECT_EQ(m.select(0, 2).select(0, 3).select(0, 1).item<float>(), 23.0f);
}

TEST(Split, EqualPiecesAndARemainder) {
  Tensor x = iota({7, 2});
  std::vector<Tensor> parts = x.split(3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_TRUE(kref::close(parts[0], kref::slice(Ref::iota({7, 2}), 0, 0, 3), kref::kExact));
  EXPECT_TRUE(kref::close(parts[2], kref::slice(Ref::iota({7, 2}), 0, 6, 7), kref::kExact));
  EXPECT_TRUE(parts[1].is_same_storage(x));
  std::vector<Tensor> cols = kiln::split(x, 1, 1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_TRUE(kref::close(cols[1], kref::slice(Ref::iota({7, 2}), 1, 1, 2), kref::kExact));
  EXPECT_EQ(x.split(10).size(), 1u);
}

TEST(Chunk, CeilSizedChunksAndFewerChunksThanAsked) {
  Tensor x = iota({7});
  std::vector<Tensor> c = x.chunk(3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].numel(), 3);
  EXPECT_EQ(c[2].numel(), 1);
  EXPECT_TRUE(kref::close(c[1], kref::slice(Ref::iota({7}), 0, 3, 6), kref::kExact));
  std::vector<Tensor> d = kiln::chunk(iota({6}), 4);  // LibTorch: ceil(6/4) = 2 per chunk -> 3 chunks
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(kref::close(d[2], Ref({2}, {4, 5}), kref::kExact));
  std::vector<Tensor> e = iota({2, 6}).chunk(2, 1);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_TRUE(kref::close(e[1], kref::slice(Ref::iota({2, 6}), 1, 3, 6), kref::kExact));
}

TEST(ViewChains, TransposeOfSliceOfViewReadsTheRightElements) {
  Tensor x = iota({4, 6}, kiln::kInt64);
  Tensor chain = x.view({2, 12}).slice(1, 1, 12, 2).view({2, 2, 3}).transpose(0, 2).select(1, 1);
  Ref r = kref::select(kref::transpose(kref::slice(Ref::iota({2, 12}), 1, 1, 12, 2).reshape({2, 2, 3}), 0, 2), 1, 1);
  EXPECT_TRUE(chain.is_same_storage(x));
  EXPECT_TRUE(kref::close(chain, r, kref::kExact));
}

}  // namespace
