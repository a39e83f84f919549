// Dynamic dims (KernelSpec::dynamic_dims): one kernel, compiled from the
// first size seen (0 among them), serves every size of its dynamic dims, read
// at run time after the scalars; checked against the evaluator at each size
// over split ranges, at O1 and O3. Keys ignore the size of a dynamic dim
// only; a mask bit at or past ndim is rejected.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <kiln/error.h>

#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

using Sizes = std::vector<std::int64_t>;

const Sizes kSizes = {0, 1, 5, 16, 17, 1000, 4099};
constexpr std::int64_t kPitch = 4104;  // row stride of a dynamic inner dim: >= every size in kSizes

KernelSpec dynamic(KernelSpec spec, std::uint32_t mask) {
  spec.dynamic_dims = mask;
  return spec;
}

// tanh(x * s0) + y and x > y over [n], dim 0 dynamic.
KernelSpec chain_1d(std::int64_t n) {
  SpecBuilder b({n});
  const ArgRef x = b.input(kFloat32), y = b.input(kFloat32);
  const ArgRef t = b.op(OpId::Tanh, kFloat32, {b.op(OpId::Mul, kFloat32, {x, b.scalar(kFloat64)})});
  b.output(b.op(OpId::Add, kFloat32, {t, y}), kFloat32);
  b.output(b.op(OpId::Gt, kFloat32, {x, y}), kBool);
  return dynamic(b.spec(), 1);
}

// exp(x + y) over [rows, tail...], y broadcast over dim 0, dim 0 dynamic.
KernelSpec broadcast_rows(std::int64_t rows, const Sizes& tail) {
  Sizes sizes = {rows};
  sizes.insert(sizes.end(), tail.begin(), tail.end());
  SpecBuilder b(sizes);
  Sizes y_strides = b.contiguous();
  y_strides[0] = 0;
  const ArgRef x = b.input(kFloat32), y = b.input(kFloat32, y_strides);
  b.output(b.op(OpId::Exp, kFloat32, {b.op(OpId::Add, kFloat32, {x, y})}), kFloat32);
  return dynamic(b.spec(), 1);
}

// max(x * c, s0) in int32 over [3, n], rows kPitch apart, c one value per
// row (inner stride 0), dim 1 (the inner one) dynamic.
KernelSpec dynamic_inner(std::int64_t n) {
  SpecBuilder b({3, n});
  const ArgRef x = b.input(kInt32, {kPitch, 1}), c = b.input(kInt32, {1, 0});
  b.output(b.op(OpId::Maximum, kInt32, {b.op(OpId::Mul, kInt32, {x, c}), b.scalar(kInt64)}), kInt32, {kPitch, 1});
  return dynamic(b.spec(), 2);
}

// x - y in float64 over [b, m, 7], dims 0 and 1 dynamic (m <= 64: dim 0's
// stride is fixed), y broadcast over dim 0.
KernelSpec two_dynamic(std::int64_t b_size, std::int64_t m) {
  SpecBuilder b({b_size, m, 7});
  const ArgRef x = b.input(kFloat64, {64 * 7, 7, 1}), y = b.input(kFloat64, {0, 7, 1});
  b.output(b.op(OpId::Sub, kFloat64, {x, y}), kFloat64, {64 * 7, 7, 1});
  return dynamic(b.spec(), 3);
}

// Compiles specs[0] once per level and checks that one kernel on every spec.
void check_one_kernel(const std::vector<KernelSpec>& specs, const std::vector<Scalar>& scalars, const std::string& label) {
  for (int level : {1, 3}) {
    const CompiledKernel kernel = OrcSession::instance().compile(specs[0], {level});
    ASSERT_NE(kernel.fn, nullptr);
    for (std::size_t k = 0; k < specs.size(); ++k) {
      const KernelSpec& spec = specs[k];
      ASSERT_EQ(spec.key(), specs[0].key());
      std::string what = spec.to_string();
      what.resize(what.find('\n'));  // "kernel [?5, 37]"
      what = label + " " + what + " at O" + std::to_string(level);
      if (!check_compiled(kernel.fn, spec, bind(spec, scalars, static_cast<unsigned>(k + 1)), what)) return;
    }
  }
}

TEST(CodegenDynamicDims, OneDimensional) {
  std::vector<KernelSpec> specs;
  for (std::int64_t n : kSizes) specs.push_back(chain_1d(n));
  check_one_kernel(specs, {0.75}, "1-D");
}

TEST(CodegenDynamicDims, OuterDimOfABroadcast) {
  for (const Sizes& tail : {Sizes{37}, Sizes{3, 37}}) {
    std::vector<KernelSpec> specs;
    for (std::int64_t n : kSizes) specs.push_back(broadcast_rows(n, tail));
    check_one_kernel(specs, {}, "[B, ...] + [...]");
  }
}

TEST(CodegenDynamicDims, InnerDim) {
  std::vector<KernelSpec> specs;
  for (std::int64_t n : kSizes) specs.push_back(dynamic_inner(n));
  check_one_kernel(specs, {-5}, "inner");
}

TEST(CodegenDynamicDims, TwoDimsReadInOrder) {
  std::vector<KernelSpec> specs;
  for (std::int64_t b : {5, 1, 17})
    for (std::int64_t m : {3, 1, 64}) specs.push_back(two_dynamic(b, m));
  check_one_kernel(specs, {}, "two");
}

TEST(CodegenDynamicDims, KeyIgnoresTheSizeOfDynamicDimsOnly) {
  const KernelSpec a = broadcast_rows(5, {37}), b = broadcast_rows(4099, {37});
  EXPECT_EQ(a.key(), b.key());
  EXPECT_NE(dynamic(a, 0).key(), dynamic(b, 0).key());
  EXPECT_NE(dynamic(a, 0).key(), a.key());
  KernelSpec wider = a;  // a static dim's size still counts
  wider.sizes[1] = 38;
  EXPECT_NE(wider.key(), a.key());
  EXPECT_EQ(a.numel(), 5 * 37);
  EXPECT_NE(a.to_string().find("kernel [?5, 37]"), std::string::npos) << a.to_string();
}

TEST(CodegenDynamicDims, MaskPastNdimIsRejected) {
  EXPECT_THROW(OrcSession::instance().compile(dynamic(broadcast_rows(5, {37}), 4), {1}), InternalError);
  KernelSpec scalar = chain_1d(1);
  scalar.ndim = 0;
  EXPECT_THROW(OrcSession::instance().compile(scalar, {1}), InternalError);
}

}  // namespace
}  // namespace kiln::jit::codegen_test
