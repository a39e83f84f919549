// Views alias their base however reads and writes are deferred: writes
// through a view are seen by the base and the other way round, pending
// readers see the values as of their call, data_ptr writes are ordered with
// the trace. All values exact.
#include <gtest/gtest.h>

#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;

TEST(Aliasing, WriteThroughViewIsSeenByBase) {
  Tensor base = kiln::zeros({3, 4});
  Tensor row = base.select(0, 1);
  row.fill_(5);
  Tensor col = base.t().select(0, 2);  // column 2
  col.add_(1);
  EXPECT_TRUE(kref::equals(base, {3, 4}, {0, 0, 1, 0, 5, 5, 6, 5, 0, 0, 1, 0}));
}

TEST(Aliasing, WriteToBaseIsSeenByEarlierView) {
  Tensor base = kiln::arange(12, kiln::kFloat32).reshape({3, 4});
  Tensor v = base.slice(1, 0, 4, 2);  // columns 0 and 2
  base.mul_(10);
  EXPECT_TRUE(kref::equals(v, {3, 2}, {0, 20, 40, 60, 80, 100}));
}

TEST(Aliasing, ViewReadBeforeAndAfterAWrite) {
  Tensor base = kiln::ones({4});
  Tensor v = base.slice(0, 1, 3);
  Tensor before = v * 1;  // pending, reads the old values
  base.fill_(7);
  Tensor after = v * 1;
  EXPECT_TRUE(kref::equals(before, {2}, {1, 1}));
  EXPECT_TRUE(kref::equals(after, {2}, {7, 7}));
}

TEST(Aliasing, ChainOfViewsWritesLandInTheRightPlaces) {
  Tensor base = kiln::zeros({4, 6}, kiln::kInt64);
  // view -> slice with step -> transpose -> select
  Tensor chain = base.view({2, 12}).slice(1, 1, 12, 2).view({2, 2, 3}).transpose(0, 2);  // [3, 2, 2]
  chain.select(1, 1).fill_(1);
  Ref want = Ref::filled({2, 12}, 0);
  // chain[k][1][i] = sliced[i][1*3 + k] = view[i][1 + 2 * (3 + k)]
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) want.v[i * 12 + 1 + 2 * (3 + k)] = 1;
  EXPECT_TRUE(kref::close(base, want.reshape({4, 6}), kref::kExact));
}

TEST(Aliasing, ViewsOfViewsAfterInPlaceOps) {
  Tensor base = kiln::arange(6, kiln::kFloat64).reshape({2, 3});
  Tensor v = base.t();
  base.add_(1);              // base: 1..6
  Tensor w = v.slice(0, 1);  // rows 1..2 of the transpose: columns 1..2 of base
  v.mul_(2);                 // base: 2..12 (even)
  Tensor ww = w.unsqueeze(0);
  base.select(0, 0).sub_(1);
  // base = [[1, 3, 5], [8, 10, 12]]
  EXPECT_TRUE(kref::equals(base, {2, 3}, {1, 3, 5, 8, 10, 12}));
  EXPECT_TRUE(kref::equals(w, {2, 2}, {3, 10, 5, 12}));
  EXPECT_TRUE(kref::equals(ww, {1, 2, 2}, {3, 10, 5, 12}));
}

TEST(Aliasing, PendingOutOfPlaceOpKeepsTheOldValueAcrossAnInPlaceOp) {
  Tensor a = kiln::full({3}, 2.0);
  Tensor b = a * 2;  // pending
  a.add_(1);
  Tensor c = a * 2;
  EXPECT_TRUE(kref::equals(b, {3}, {4, 4, 4}));
  EXPECT_TRUE(kref::equals(c, {3}, {6, 6, 6}));
  EXPECT_TRUE(kref::equals(a, {3}, {3, 3, 3}));
}

TEST(Aliasing, PendingReductionOfAViewKeepsTheOldValue) {
  Tensor a = kiln::ones({2, 3});
  Tensor s = a.t().sum({0});  // pending: per-row sums of a = [3, 3]
  a.select(0, 0).fill_(10);
  EXPECT_TRUE(kref::equals(s, {2}, {3, 3}));
  EXPECT_TRUE(kref::equals(a.sum({1}), {2}, {30, 3}));
}

TEST(Aliasing, DataPtrWritesAreSeenByLaterOpsButNotByEarlierPendingOnes) {
  Tensor a = kiln::ones({4});
  Tensor earlier = a * 2;  // pending reader of a
  float* p = a.data_ptr<float>();
  p[0] = 10;
  Tensor later = a * 2;
  EXPECT_TRUE(kref::equals(earlier, {4}, {2, 2, 2, 2}));
  EXPECT_TRUE(kref::equals(later, {4}, {20, 2, 2, 2}));
}

TEST(Aliasing, DataPtrOfAViewPointsIntoTheBase) {
  Tensor base = kiln::arange(6, kiln::kInt64);
  Tensor v = base.slice(0, 2);
  std::int64_t* p = v.data_ptr<std::int64_t>();
  EXPECT_EQ(p[0], 2);
  p[1] = 99;
  EXPECT_EQ(base.select(0, 3).item<std::int64_t>(), 99);
  EXPECT_EQ(base.data_ptr<std::int64_t>() + 2, p);
}

TEST(Aliasing, DataPtrSeesPendingInPlaceWritesThroughViews) {
  Tensor base = kiln::zeros({2, 2});
  base.t().select(0, 1).fill_(3);  // column 1
  float* p = base.data_ptr<float>();
  EXPECT_EQ(std::vector<float>(p, p + 4), (std::vector<float>{0, 3, 0, 3}));
}

TEST(Aliasing, AddInPlaceOfOwnTransposeEqualsOutOfPlaceResult) {
  Tensor x = kiln::arange(9, kiln::kFloat32).reshape({3, 3});
  Tensor expected = x + x.t();
  x.add_(x.t());
  EXPECT_TRUE(kref::equals(expected, {3, 3}, {0, 4, 8, 4, 8, 12, 8, 12, 16}));
  EXPECT_TRUE(kref::equals(x, {3, 3}, {0, 4, 8, 4, 8, 12, 8, 12, 16}));
}

TEST(Aliasing, InPlaceFromAnOverlappingShiftedSliceReadsOldValues) {
  // x[1:] += x[:-1] must read x[:-1] as it was before the op, like the out-of-place form.
  Tensor x = kiln::arange(5, kiln::kInt64);
  x.slice(0, 1).add_(x.slice(0, 0, 4));
  EXPECT_TRUE(kref::equals(x, {5}, {0, 1, 3, 5, 7}));
}

TEST(Aliasing, CopyIntoAViewFromItsOwnBase) {
  Tensor x = kiln::arange(6, kiln::kFloat64).reshape({2, 3});
  x.select(0, 1).copy_(x.select(0, 0));
  EXPECT_TRUE(kref::equals(x, {2, 3}, {0, 1, 2, 0, 1, 2}));
}

TEST(Aliasing, WritesThroughADroppedHandleAreKeptForTheSurvivingAliases) {
  Tensor v;
  {
    Tensor base = kiln::zeros({4});
    v = base.slice(0, 1, 3);
    base.fill_(3);  // base's handle dies before anything runs
  }
  EXPECT_TRUE(kref::equals(v, {2}, {3, 3}));
  Tensor b = kiln::zeros({2, 2});
  {
    Tensor row = b.t().select(0, 1);  // column 1 of b
    row.add_(1);
  }
  EXPECT_TRUE(kref::equals(b, {2, 2}, {0, 1, 0, 1}));
}

TEST(Aliasing, HandleCopiesShareTheTensor) {
  Tensor a = kiln::zeros({2});
  Tensor b = a;  // a handle copy, as in LibTorch
  b.add_(4);
  EXPECT_TRUE(kref::equals(a, {2}, {4, 4}));
  EXPECT_TRUE(a.is_same_storage(b));
}

TEST(Aliasing, ReshapeViewWritesAreSeenButReshapeCopyWritesAreNot) {
  Tensor x = kiln::zeros({2, 3});
  Tensor view = x.reshape({6});
  view.select(0, 4).fill_(1);
  Tensor copy = x.t().reshape({6});
  copy.fill_(9);
  EXPECT_TRUE(kref::equals(x, {2, 3}, {0, 0, 0, 0, 1, 0}));
}

TEST(Aliasing, ManyInterleavedWritesAndReadsThroughDifferentViews) {
  Tensor base = kiln::zeros({4, 4}, kiln::kInt32);
  Ref want = Ref::filled({4, 4}, 0);
  std::vector<Tensor> snapshots;
  std::vector<Ref> snapshot_want;
  for (int step = 0; step < 8; ++step) {
    int r = step % 4, c = (step * 3) % 4;
    base.select(0, r).add_(step + 1);               // a row
    for (int j = 0; j < 4; ++j) want.v[r * 4 + j] += step + 1;
    base.t().select(0, c).mul_(2);                  // a column
    for (int i = 0; i < 4; ++i) want.v[i * 4 + c] *= 2;
    snapshots.push_back(base.sum({0}));             // pending read of the state now
    snapshot_want.push_back(kref::reduce(want, {0}, false, kref::sum_of));
  }
  EXPECT_TRUE(kref::close(base, want, kref::kExact));
  for (std::size_t i = 0; i < snapshots.size(); ++i) {
    SCOPED_TRACE("snapshot " + std::to_string(i));
    EXPECT_TRUE(kref::close(snapshots[i], snapshot_want[i], kref::kExact));
  }
}

}  // namespace
