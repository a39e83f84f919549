// Result dtypes against a table of what LibTorch gives for the same call
// (torch.result_type rules: dimmed tensors > zero-dim tensors > numbers, a
// lower rank counting only when of a higher category), plus the values.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace {

using kiln::Tensor;

Tensor vec(kiln::ScalarType dt) { return kiln::tensor({1, 2}, kiln::TensorOptions(dt)); }
Tensor zero_dim(kiln::ScalarType dt, double v = 1) { return kiln::scalar_tensor(v, kiln::TensorOptions(dt)); }

struct Row {
  const char* what;
  std::function<Tensor()> make;
  kiln::ScalarType expected;  // what LibTorch 2.x gives
};

std::vector<Row> table() {
  using namespace kiln;
  return {
      {"Int + Long", [] { return vec(kInt32) + vec(kInt64); }, kInt64},
      {"Int + Float", [] { return vec(kInt32) + vec(kFloat32); }, kFloat32},
      {"Float + Double", [] { return vec(kFloat32) + vec(kFloat64); }, kFloat64},
      {"Long + Double", [] { return vec(kInt64) * vec(kFloat64); }, kFloat64},
      {"Int tensor + 2.5", [] { return vec(kInt32) + 2.5; }, kFloat32},
      {"Int tensor + 2", [] { return vec(kInt32) + 2; }, kInt32},
      {"Int tensor * 2.0", [] { return vec(kInt32) * 2.0; }, kFloat32},
      {"Double tensor + 2.5", [] { return vec(kFloat64) + 2.5; }, kFloat64},
      {"Float tensor + true", [] { return vec(kFloat32) + true; }, kFloat32},
      {"Bool + Bool", [] { return vec(kBool) + vec(kBool); }, kBool},
      {"Bool + 1", [] { return vec(kBool) + 1; }, kInt64},
      {"Bool + 2.5", [] { return vec(kBool) + 2.5; }, kFloat32},
      {"Bool + Int tensor", [] { return vec(kBool) + vec(kInt32); }, kInt32},
      {"Long tensor + true", [] { return vec(kInt64) + true; }, kInt64},
      {"Long tensor + Float zero-dim", [] { return vec(kInt64) + zero_dim(kFloat32); }, kFloat32},
      {"Float tensor + Double zero-dim", [] { return vec(kFloat32) + zero_dim(kFloat64); }, kFloat32},
      {"Int tensor + Double zero-dim", [] { return vec(kInt32) + zero_dim(kFloat64); }, kFloat64},
      {"Int tensor + Long zero-dim", [] { return vec(kInt32) + zero_dim(kInt64); }, kInt32},
      {"Bool tensor + Int zero-dim", [] { return vec(kBool) + zero_dim(kInt32); }, kInt32},
      {"Int zero-dim + Long zero-dim", [] { return zero_dim(kInt32) + zero_dim(kInt64); }, kInt64},
      {"Int zero-dim + 2.5", [] { return zero_dim(kInt32) + 2.5; }, kFloat32},
      {"Double zero-dim + 2", [] { return zero_dim(kFloat64) + 2; }, kFloat64},
      {"Int / Int", [] { return vec(kInt32) / vec(kInt32); }, kFloat32},
      {"Long / 2", [] { return vec(kInt64) / 2; }, kFloat32},
      {"Double / Int", [] { return vec(kFloat64) / vec(kInt32); }, kFloat64},
      {"Int < Int", [] { return vec(kInt32) < vec(kInt32); }, kBool},
      {"Float == 2.5", [] { return vec(kFloat32) == 2.5; }, kBool},
      {"Double >= Long", [] { return vec(kFloat64) >= vec(kInt64); }, kBool},
      {"sum of Int", [] { return vec(kInt32).sum(); }, kInt64},
      {"sum of Bool", [] { return vec(kBool).sum(); }, kInt64},
      {"sum of Float over dim", [] { return vec(kFloat32).sum({0}); }, kFloat32},
      {"prod of Int", [] { return vec(kInt32).prod(); }, kInt64},
      {"amax of Int", [] { return vec(kInt32).amax(); }, kInt32},
      {"max of Long", [] { return vec(kInt64).max(); }, kInt64},
      {"argmax of Float", [] { return vec(kFloat32).argmax(); }, kInt64},
      {"mean of Double", [] { return vec(kFloat64).mean(); }, kFloat64},
      {"exp of Long", [] { return vec(kInt64).exp(); }, kFloat32},
      {"sqrt of Int", [] { return vec(kInt32).sqrt(); }, kFloat32},
      {"sigmoid of Double", [] { return vec(kFloat64).sigmoid(); }, kFloat64},
      {"neg of Int", [] { return vec(kInt32).neg(); }, kInt32},
      {"maximum(Int, Float)", [] { return kiln::maximum(vec(kInt32), vec(kFloat32)); }, kFloat32},
      {"pow(Int, 2)", [] { return vec(kInt32).pow(2); }, kInt32},
      {"pow(Int, 0.5)", [] { return vec(kInt32).pow(0.5); }, kFloat32},
      {"pow(2.0, Long)", [] { return kiln::pow(2.0, vec(kInt64)); }, kFloat32},
      {"clamp(Int, 0, 1)", [] { return vec(kInt32).clamp(0, 1); }, kInt32},
      {"clamp(Int, 0.5)", [] { return vec(kInt32).clamp(0.5); }, kFloat32},
      {"matmul(Long, Long)", [] { return kiln::matmul(vec(kInt64), vec(kInt64)); }, kInt64},
      {"cat(Int, Float)", [] { return kiln::cat({vec(kInt32), vec(kFloat32)}); }, kFloat32},
      {"softmax of Double", [] { return vec(kFloat64).softmax(0); }, kFloat64},
  };
}

TEST(Promotion, ResultDtypesMatchLibTorchTable) {
  for (const Row& r : table()) {
    SCOPED_TRACE(r.what);
    Tensor out = r.make();
    EXPECT_EQ(out.dtype(), r.expected) << r.what << " gave " << kiln::to_string(out.dtype());
  }
}

TEST(Promotion, ValuesFollowTheResultDtype) {
  Tensor i = kiln::tensor({1, 2, 3}, kiln::kInt32);
  EXPECT_TRUE(kref::equals(i + 2.5, {3}, {3.5, 4.5, 5.5}));
  EXPECT_TRUE(kref::equals(i + 2, {3}, {3, 4, 5}));
  EXPECT_TRUE(kref::equals(i / i.mul(2), {3}, {0.5, 0.5, 0.5}));
  EXPECT_TRUE(kref::equals(i + kiln::scalar_tensor(0.25, kiln::kFloat64), {3}, {1.25, 2.25, 3.25}));
  EXPECT_TRUE(kref::equals(kiln::tensor({true, false}) + 1, {2}, {2, 1}));
  // Float + Double zero-dim stays Float: the sum is rounded to float32.
  Tensor f = kiln::tensor({1.0f}) + kiln::scalar_tensor(1e-10, kiln::kFloat64);
  EXPECT_EQ(f.item<double>(), 1.0);
}

TEST(Promotion, MixedIntAndFloatNonContiguousOperands) {
  Tensor i = kiln::arange(6, kiln::kInt32).reshape({2, 3});
  Tensor f = kiln::arange(6, kiln::kFloat64).reshape({3, 2}).t();  // f[r][c] = 2c + r
  Tensor out = i * f;
  EXPECT_EQ(out.dtype(), kiln::kFloat64);
  EXPECT_TRUE(kref::equals(out, {2, 3}, {0, 2, 8, 3, 12, 25}));
}

}  // namespace
