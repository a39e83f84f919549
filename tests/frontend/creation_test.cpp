// Deterministic creation: zeros, ones, full, empty, eye, arange, linspace,
// *_like, from_blob, tensor, scalar_tensor: shapes, dtypes (LibTorch's
// defaults), values (exact; linspace float32 rel 1e-6).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using Sizes = std::vector<std::int64_t>;

TEST(Creation, ZerosOnesFullForEveryDtype) {
  for (kiln::ScalarType dt : {kiln::kFloat32, kiln::kFloat64, kiln::kInt32, kiln::kInt64, kiln::kBool}) {
    SCOPED_TRACE(kiln::to_string(dt));
    Tensor z = kiln::zeros({2, 3}, dt), o = kiln::ones({2, 3}, kiln::TensorOptions().dtype(dt));
    Tensor f = kiln::full({3, 2}, 1, kiln::TensorOptions(dt));
    EXPECT_EQ(z.dtype(), dt);
    EXPECT_EQ(o.dtype(), dt);
    EXPECT_EQ(f.dtype(), dt);
    EXPECT_TRUE(z.is_contiguous());
    EXPECT_TRUE(kref::close(z, Ref::filled({2, 3}, 0), kref::kExact));
    EXPECT_TRUE(kref::close(o, Ref::filled({2, 3}, 1), kref::kExact));
    EXPECT_TRUE(kref::close(f, Ref::filled({3, 2}, 1), kref::kExact));
  }
}

TEST(Creation, DefaultDtypesFollowLibTorch) {
  EXPECT_EQ(kiln::zeros({2}).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::ones({2}).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::empty({2}).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::full({2}, 3).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::full({2}, 2.5).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::full({2}, true).dtype(), kiln::kBool);
  EXPECT_EQ(kiln::arange(5).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::arange(0.0, 1.0, 0.25).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::linspace(0, 1, 3).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::eye(2).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::tensor({1, 2}).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::tensor({1.0, 2.0}).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::tensor({1.0f}).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::tensor({true, false}).dtype(), kiln::kBool);
  EXPECT_EQ(kiln::tensor(std::vector<double>{1.5}).dtype(), kiln::kFloat32);
  EXPECT_EQ(kiln::tensor(std::vector<std::int64_t>{1}).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::tensor(std::vector<int>{1}).dtype(), kiln::kInt64);
}

TEST(Creation, FullValues) {
  EXPECT_TRUE(kref::equals(kiln::full({2, 2}, 2.5), {2, 2}, {2.5, 2.5, 2.5, 2.5}));
  EXPECT_TRUE(kref::equals(kiln::full({3}, -7), {3}, {-7, -7, -7}));
  EXPECT_TRUE(kref::equals(kiln::full({2}, 2.5, kiln::kInt32), {2}, {2, 2}));
  EXPECT_EQ(kiln::full({}, 4.0).dim(), 0);
  EXPECT_EQ(kiln::full({}, 4.0).item<float>(), 4.0f);
}

TEST(Creation, ZeroSizeAndZeroDimShapes) {
  EXPECT_EQ(kiln::zeros({0}).numel(), 0);
  EXPECT_EQ(kiln::ones({3, 0, 2}).sizes().vec(), (Sizes{3, 0, 2}));
  EXPECT_TRUE(kiln::ones({3, 0}).to_vector<float>().empty());
  Tensor s = kiln::zeros({});
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.item<float>(), 0.0f);
}

TEST(Creation, EmptyHasShapeAndDtypeAndIsWritable) {
  Tensor e = kiln::empty({4, 5}, kiln::kInt32);
  EXPECT_EQ(e.sizes().vec(), (Sizes{4, 5}));
  EXPECT_EQ(e.dtype(), kiln::kInt32);
  e.fill_(3);
  EXPECT_TRUE(kref::close(e, Ref::filled({4, 5}, 3), kref::kExact));
}

TEST(Creation, EyeSquareAndRectangular) {
  EXPECT_TRUE(kref::equals(kiln::eye(3), {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_TRUE(kref::equals(kiln::eye(2, 3), {2, 3}, {1, 0, 0, 0, 1, 0}));
  EXPECT_TRUE(kref::equals(kiln::eye(3, 2, kiln::kInt64), {3, 2}, {1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(kiln::eye(3, 2, kiln::kInt64).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::eye(0).numel(), 0);
}

TEST(Creation, ArangeIntegerFloatAndNegativeSteps) {
  EXPECT_TRUE(kref::equals(kiln::arange(5), {5}, {0, 1, 2, 3, 4}));
  EXPECT_TRUE(kref::equals(kiln::arange(2, 11, 3), {3}, {2, 5, 8}));
  EXPECT_TRUE(kref::equals(kiln::arange(5, 0, -2), {3}, {5, 3, 1}));
  EXPECT_TRUE(kref::equals(kiln::arange(0.0, 1.0, 0.25), {4}, {0, 0.25, 0.5, 0.75}));
  EXPECT_TRUE(kref::equals(kiln::arange(1, 2.5, 0.5), {3}, {1, 1.5, 2}));
  EXPECT_TRUE(kref::equals(kiln::arange(4, kiln::kFloat64), {4}, {0, 1, 2, 3}));
  EXPECT_EQ(kiln::arange(4, kiln::kFloat64).dtype(), kiln::kFloat64);
  EXPECT_EQ(kiln::arange(0).numel(), 0);
  EXPECT_EQ(kiln::arange(3, 3).numel(), 0);
}

TEST(Creation, LinspaceEndpointsAndSymmetry) {
  EXPECT_TRUE(kref::close(kiln::linspace(0, 1, 5), Ref({5}, {0, 0.25, 0.5, 0.75, 1}), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::linspace(-1, 1, 3, kiln::kFloat64), Ref({3}, {-1, 0, 1}), kref::kExact));
  EXPECT_TRUE(kref::equals(kiln::linspace(2, 5, 1), {1}, {2}));
  EXPECT_EQ(kiln::linspace(2, 5, 0).numel(), 0);
  // 0.1 steps: both endpoints exact, the rest within float rounding.
  Ref want = Ref::filled({11}, 0);
  for (int i = 0; i <= 10; ++i) want.v[i] = 1.0 + 0.1 * i;
  Tensor l = kiln::linspace(1.0, 2.0, 11);
  EXPECT_TRUE(kref::close(l, want, kref::Tol{1e-6, 0}));
  std::vector<float> v = l.to_vector<float>();
  EXPECT_EQ(v.front(), 1.0f);
  EXPECT_EQ(v.back(), 2.0f);
  EXPECT_TRUE(kref::equals(kiln::linspace(0, 10, 6, kiln::kInt64), {6}, {0, 2, 4, 6, 8, 10}));
}

TEST(Creation, LikeFunctionsCopyShapeAndDtype) {
  Tensor proto = kiln::ones({2, 3}, kiln::kFloat64).t();
  for (Tensor t : {kiln::zeros_like(proto), kiln::ones_like(proto), kiln::empty_like(proto),
                   kiln::full_like(proto, 2), kiln::rand_like(proto), kiln::randn_like(proto)}) {
    EXPECT_EQ(t.sizes().vec(), (Sizes{3, 2}));
    EXPECT_EQ(t.dtype(), kiln::kFloat64);
  }
  EXPECT_TRUE(kref::close(kiln::zeros_like(proto), Ref::filled({3, 2}, 0), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::ones_like(proto), Ref::filled({3, 2}, 1), kref::kExact));
  EXPECT_TRUE(kref::close(kiln::full_like(proto, 2.5), Ref::filled({3, 2}, 2.5), kref::kExact));
  EXPECT_EQ(kiln::full_like(kiln::zeros({2}, kiln::kInt32), 7).dtype(), kiln::kInt32);
}

TEST(Creation, TensorFromNestedListsAndOptions) {
  EXPECT_TRUE(kref::equals(kiln::tensor({{1, 2, 3}, {4, 5, 6}}), {2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(kiln::tensor({{1, 2}, {3, 4}}).dtype(), kiln::kInt64);
  EXPECT_EQ(kiln::tensor({{1.5, 2.0}}).dtype(), kiln::kFloat32);
  EXPECT_TRUE(kref::equals(kiln::tensor({{1.5f, 2.0f}}, kiln::kFloat64), {1, 2}, {1.5, 2}));
  Tensor i = kiln::tensor({1.9, -1.9}, kiln::kInt32);
  EXPECT_EQ(i.dtype(), kiln::kInt32);
  EXPECT_TRUE(kref::equals(i, {2}, {1, -1}));
  EXPECT_TRUE(kref::equals(kiln::tensor(std::vector<float>{0.25f, 4}), {2}, {0.25, 4}));
  EXPECT_TRUE(kref::equals(kiln::tensor(std::vector<double>{}), {0}, {}));
}

TEST(Creation, TensorCopiesItsInput) {
  std::vector<double> v = {1, 2, 3};
  Tensor t = kiln::tensor(v, kiln::kFloat64);
  v[0] = 100;
  EXPECT_TRUE(kref::equals(t, {3}, {1, 2, 3}));
}

TEST(Creation, ScalarTensorIsZeroDim) {
  Tensor s = kiln::scalar_tensor(3.5, kiln::kFloat64);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.item<double>(), 3.5);
  EXPECT_EQ(kiln::scalar_tensor(2, kiln::kInt32).item<std::int32_t>(), 2);
}

TEST(Creation, RequiresGradOptionMakesALeafThatRequiresGrad) {
  Tensor t = kiln::zeros({2}, kiln::TensorOptions().requires_grad(true));
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(t.is_leaf());
  EXPECT_FALSE(kiln::zeros({2}).requires_grad());
}

TEST(FromBlob, BorrowsMemoryBothWays) {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = kiln::from_blob(buf, {2, 3});
  EXPECT_EQ(t.dtype(), kiln::kFloat32);
  EXPECT_TRUE(kref::equals(t, {2, 3}, {1, 2, 3, 4, 5, 6}));
  buf[4] = 50;  // nothing pending reads it: the next read sees it
  EXPECT_TRUE(kref::equals(t.sum({0}), {3}, {5, 52, 9}));
  t.mul_(2);
  kiln::sync();
  EXPECT_EQ(buf[0], 2.0f);
  EXPECT_EQ(buf[4], 100.0f);
  EXPECT_EQ(t.data_ptr<float>(), buf);
}

TEST(FromBlob, UserWriteAfterAnOpWasCalledIsNotSeenByThatOp) {
  // LibTorch computes y at the call; the user may then reuse the buffer for the next input.
  float buf[3] = {1, 2, 3};
  Tensor t = kiln::from_blob(buf, {3});
  Tensor y = t * 2;
  buf[0] = 100;
  Tensor z = t * 2;
  EXPECT_TRUE(kref::equals(y, {3}, {2, 4, 6}));
  EXPECT_TRUE(kref::equals(z, {3}, {200, 4, 6}));
}

TEST(FromBlob, WritesIntoBorrowedMemoryLandAfterTheHandleIsDropped) {
  // The usual way to hand results to a caller's buffer: wrap it, copy_ into it, drop the wrapper.
  std::vector<float> dst(3, 0);
  {
    Tensor out = kiln::from_blob(dst.data(), {3});
    out.copy_(kiln::arange(3, kiln::kFloat32) + 1);
  }
  kiln::sync();
  EXPECT_EQ(dst, (std::vector<float>{1, 2, 3}));
}

TEST(FromBlob, WritesIntoBorrowedMemoryLandWithoutAnExplicitSync) {
  // kiln::sync() is optional: the caller reads its own buffer once the wrapper is gone.
  std::vector<std::int64_t> dst(2, 0);
  {
    Tensor out = kiln::from_blob(dst.data(), {2}, kiln::kInt64);
    out.add_(7);
  }
  EXPECT_EQ(dst, (std::vector<std::int64_t>{7, 7}));
}

TEST(FromBlob, DeleterSeesTheWrittenValues) {
  float seen = -1;
  auto* buf = new float[2]{1, 1};
  {
    Tensor t = kiln::from_blob(buf, {2}, [&](void* p) {
      seen = static_cast<float*>(p)[0];
      delete[] static_cast<float*>(p);
    });
    t.add_(5);
  }
  kiln::sync();
  EXPECT_EQ(seen, 6.0f);
}

TEST(FromBlob, StridesAndDtypeOptions) {
  std::int64_t buf[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = kiln::from_blob(buf, {3, 2}, {1, 3}, kiln::kInt64);  // the transpose of a [2, 3] block
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(kref::equals(t, {3, 2}, {0, 3, 1, 4, 2, 5}));
  EXPECT_TRUE(kref::equals(t.matmul(kiln::tensor({1, 1})), {3}, {3, 5, 7}));
}

TEST(FromBlob, DeleterRunsOnceWhenTheLastViewIsGone) {
  int calls = 0;
  void* seen = nullptr;
  auto* buf = new double[4]{1, 2, 3, 4};
  {
    Tensor t = kiln::from_blob(buf, {4}, [&](void* p) { ++calls; seen = p; delete[] static_cast<double*>(p); },
                               kiln::kFloat64);
    Tensor v = t.slice(0, 1, 3);
    Tensor s = (v * 2).sum();
    t = Tensor();
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(s.item<double>(), 10.0);
    EXPECT_EQ(calls, 0);  // v still holds the memory
  }
  kiln::sync();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, buf);
}

}  // namespace
