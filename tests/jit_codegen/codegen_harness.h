// Test harness of the native-code generator: KernelSpecs written by hand,
// typed buffers, a plain scalar evaluator of a KernelSpec, and the check that
// runs a compiled kernel the way a parallel_for would (whole range and split
// ranges) and compares it with the evaluator.
//
// The evaluator is the definition: it walks the iteration space element by
// element and applies each instruction with double math for floats, rounding
// every instruction's result to its dtype (so float32 +, -, *, /, sqrt are
// exact), exact wrapping arithmetic for integers, and bools as 0/1.
//
// Tolerance: kernels without a transcendental op (exp, log, log1p, sin, cos,
// tanh, sigmoid, gelu, float pow) must match bit for bit (any NaN matches any
// NaN). With one, libmvec's vector variants (<= 4 ulp) are allowed: a float
// element passes if it is within 4 ulp of the reference, or if
// |got - want| <= 16 eps (1 + |want|) (cancellation after a transcendental,
// e.g. 1 + tanh(y) near y = -3 in GELU), eps the dtype's epsilon.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/dtype.h>
#include <kiln/scalar.h>

#include "jit/fusion/kernel_spec.h"
#include "jit/orc/session.h"

namespace kiln::jit::codegen_test {

using trace::OpId;

/// Elements of one dtype as raw bytes (int32 and bool as themselves).
struct Buffer {
  ScalarType dtype = kFloat32;
  std::vector<std::uint64_t> storage;  // 8-byte aligned
  std::int64_t size = 0;

  Buffer() = default;
  Buffer(ScalarType t, std::int64_t n);
  void* data() { return storage.data(); }
  const void* data() const { return storage.data(); }
  /// Element i as double (floats), int64 (ints) or 0/1 (bool).
  double get_float(std::int64_t i) const;
  std::int64_t get_int(std::int64_t i) const;
  void set_float(std::int64_t i, double v);
  void set_int(std::int64_t i, std::int64_t v);
  std::string show(std::int64_t i) const;
};

/// Builds a KernelSpec: inputs, scalars, instructions, outputs in order.
class SpecBuilder {
 public:
  explicit SpecBuilder(std::vector<std::int64_t> sizes);

  /// Row-major contiguous strides of the iteration space.
  std::vector<std::int64_t> contiguous() const;
  ArgRef input(ScalarType t, std::vector<std::int64_t> strides = {});  // default: contiguous
  ArgRef scalar(ScalarType kind);
  /// An instruction computing in `dtype`; its out_dtype is bool for
  /// comparisons and logical ops, else `dtype`.
  ArgRef op(OpId op, ScalarType dtype, std::vector<ArgRef> args, std::int64_t attr = 0);
  /// Copy of `x` (dtype `from`) converted to `to`.
  ArgRef cast(ArgRef x, ScalarType from, ScalarType to);
  void output(ArgRef value, ScalarType t, std::vector<std::int64_t> strides = {});

  const KernelSpec& spec() const { return spec_; }

 private:
  KernelSpec spec_;
};

/// Data for the inputs of a spec: `values(t, n, seed)` per input, and
/// scalars. Inputs are sized to the largest element offset their strides reach.
struct Bindings {
  std::vector<Buffer> inputs;
  std::vector<Scalar> scalars;
};

/// A spread of values of dtype t (edge cases: NaN, +-inf, +-0, denormals,
/// extremes; small integers for pow exponents), deterministic in `seed`.
Buffer sample(ScalarType t, std::int64_t n, unsigned seed);

/// Inputs for every operand of `spec`, from sample(); scalars given.
Bindings bind(const KernelSpec& spec, std::vector<Scalar> scalars = {}, unsigned seed = 1);

/// Element count an operand with these strides touches (max offset + 1).
std::int64_t extent(const KernelSpec& spec, const KernelOperand& operand);

/// Output buffers the reference evaluator computes for `spec` on `b`, for
/// the linear indices [begin, end) (end < 0: numel); the rest stays sentinel.
std::vector<Buffer> evaluate(const KernelSpec& spec, const Bindings& b, std::int64_t begin = 0, std::int64_t end = -1);

/// Runs `fn` over [0, numel) in the pieces `cuts` delimits (each piece a
/// separate call, as parallel_for chunks) into fresh output buffers. The
/// sizes of `spec`'s dynamic dims are passed after its scalars.
std::vector<Buffer> run(CompiledFn fn, const KernelSpec& spec, const Bindings& b,
                        const std::vector<std::int64_t>& cuts);

/// Whether `spec` contains an op computed with a libm/libmvec function.
bool has_transcendental(const KernelSpec& spec);

/// Compares outputs as documented above; returns "" or the first mismatches.
std::string compare(const KernelSpec& spec, const std::vector<Buffer>& got, const std::vector<Buffer>& want);

/// Checks `fn` (compiled from `spec`, or from a spec of the same key) against
/// the evaluator over the whole range, over [0, 37) + [37, n), over a ragged
/// split into many pieces, and over one piece from the middle alone (nothing
/// outside it may be written). On mismatch, fails the current test (gtest)
/// with the spec and returns false.
bool check_compiled(CompiledFn fn, const KernelSpec& spec, const Bindings& b, const std::string& label);

/// Compiles `spec` at O1 and O3 and check_compiled()s each.
void check_kernel(const KernelSpec& spec, const Bindings& b, const std::string& label);
void check_kernel(const KernelSpec& spec, const std::string& label);

}  // namespace kiln::jit::codegen_test
