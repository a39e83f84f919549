// Every fusible op of trace/ops.def in every dtype its tier-0 kernel has,
// compiled alone at O1 and O3, against the evaluator; dtypes it lacks must
// be rejected with InternalError (never a crash or a wrong kernel).
#include <cmath>
#include <climits>
#include <cstdint>

#include <gtest/gtest.h>

#include <kiln/error.h>

#include "jit/kernels/dtype_dispatch.h"
#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

constexpr ScalarType kDtypes[] = {kBool, kInt32, kInt64, kFloat32, kFloat64};

// The dtypes each op has a fused form for: its tier-0 kernel's
// (jit/kernels/*.cpp), but for integer fmod, remainder and floor_divide
// (tier 0 only).
DtypeSet tier0_dtypes(OpId op) {
  switch (op) {
    case OpId::Neg:
    case OpId::Abs:
    case OpId::Relu:
    case OpId::Sub:
    case OpId::Pow: return kNumericTypes;
    case OpId::Exp:
    case OpId::Log:
    case OpId::Log1p:
    case OpId::Sqrt:
    case OpId::Rsqrt:
    case OpId::Reciprocal:
    case OpId::Sin:
    case OpId::Cos:
    case OpId::Tanh:
    case OpId::Erf:
    case OpId::Floor:
    case OpId::Ceil:
    case OpId::Round:
    case OpId::Trunc:
    case OpId::Sigmoid:
    case OpId::Gelu:
    case OpId::Div:
    case OpId::Fmod:  // integers too on tier 0, which throws on a zero
    case OpId::Remainder:  // divisor: never fused
    case OpId::FloorDivide: return kFloatTypes;
    default: return kAllTypes;
  }
}

std::vector<OpId> fusible_ops() {
  std::vector<OpId> ops;
  for (int i = 0; i < trace::kNumOps; ++i)
    if (is_fusible(static_cast<OpId>(i))) ops.push_back(static_cast<OpId>(i));
  return ops;
}

// One instruction on [5, 131]: the second operand of a binary op is
// broadcast along rows, the third of Where is a run-time scalar.
KernelSpec single_op(OpId op, ScalarType t, std::int64_t attr = 0) {
  SpecBuilder b({5, 131});
  const int arity = trace::info(op).arity;
  std::vector<ArgRef> args;
  if (op == OpId::Where) {
    args = {b.input(kBool), b.input(t, {0, 1}), b.scalar(is_floating_point(t) ? kFloat64 : kInt64)};
  } else {
    args.push_back(b.input(t));
    if (arity == 2) args.push_back(b.input(t, {0, 1}));
  }
  const ArgRef r = b.op(op, t, args, attr);
  const ScalarType out = b.spec().instrs.back().out_dtype;
  b.output(r, out);
  return b.spec();
}

std::string label(OpId op, ScalarType t) { return std::string(trace::name(op)) + "." + to_string(t); }

TEST(CodegenSingleOp, FusibleOpsAreTheElementwiseOnes) {
  const std::vector<OpId> expected = {
      OpId::Copy, OpId::Neg, OpId::Abs, OpId::Exp, OpId::Log, OpId::Log1p, OpId::Sqrt, OpId::Rsqrt,
      OpId::Reciprocal, OpId::Sin, OpId::Cos, OpId::Tanh, OpId::Sigmoid, OpId::Relu, OpId::Gelu, OpId::Erf, OpId::Floor, OpId::Ceil,
      OpId::Round, OpId::Trunc, OpId::LogicalNot,
      OpId::Add, OpId::Sub, OpId::Mul, OpId::Div, OpId::Pow, OpId::Fmod, OpId::Remainder, OpId::FloorDivide, OpId::Maximum, OpId::Minimum, OpId::Eq,
      OpId::Ne, OpId::Lt, OpId::Le, OpId::Gt, OpId::Ge, OpId::LogicalAnd, OpId::LogicalOr, OpId::Where};
  EXPECT_EQ(fusible_ops(), expected);
  EXPECT_FALSE(is_fusible(OpId::Fill));
  EXPECT_FALSE(is_fusible(OpId::Sum));
  EXPECT_FALSE(is_fusible(OpId::MatMul));
}

TEST(CodegenSingleOp, EveryOpEveryDtype) {
  for (OpId op : fusible_ops()) {
    if (op == OpId::Copy) continue;  // its own test: every pair of dtypes
    for (ScalarType t : kDtypes) {
      SCOPED_TRACE(label(op, t));
      const bool supported = (tier0_dtypes(op) & dtype_bit(t)) != 0;
      for (std::int64_t attr : {0, 1}) {
        if (attr == 1 && op != OpId::Gelu) continue;
        const KernelSpec spec = single_op(op, t, attr);
        if (!supported) {
          EXPECT_THROW(OrcSession::instance().compile(spec, {1}), InternalError);
          continue;
        }
        std::vector<Scalar> scalars;
        if (op == OpId::Where) scalars.push_back(is_floating_point(t) ? Scalar(-2.5) : Scalar(std::int64_t{-7}));
        check_kernel(spec, bind(spec, scalars, static_cast<unsigned>(op) * 5 + static_cast<unsigned>(t)),
                     label(op, t) + (attr ? " (tanh)" : ""));
      }
    }
  }
}

TEST(CodegenSingleOp, CopyBetweenEveryPairOfDtypes) {
  for (ScalarType from : kDtypes)
    for (ScalarType to : kDtypes) {
      SpecBuilder b({3, 41});
      b.output(b.cast(b.input(from), from, to), to);
      check_kernel(b.spec(), std::string("copy ") + to_string(from) + " -> " + to_string(to));
    }
}

// float -> int saturates (llvm.fptosi.sat), where the C++ cast is undefined.
TEST(CodegenSingleOp, FloatToIntSaturates) {
  SpecBuilder b({8});
  const ArgRef x = b.input(kFloat64);
  b.output(b.cast(x, kFloat64, kInt32), kInt32);
  b.output(b.cast(x, kFloat64, kInt64), kInt64);
  Bindings data = bind(b.spec());
  const double values[] = {NAN, INFINITY, -INFINITY, 3e9, -3e9, 1e300, -2.9, 2.9};
  for (int i = 0; i < 8; ++i) data.inputs[0].set_float(i, values[i]);
  const CompiledKernel k = OrcSession::instance().compile(b.spec(), {1});
  const std::vector<Buffer> out = run(k.fn, b.spec(), data, {0, 8});
  const std::int64_t i32[] = {0, 2147483647, -2147483648LL, 2147483647, -2147483648LL, 2147483647, -2, 2};
  const std::int64_t i64[] = {0, INT64_MAX, INT64_MIN, 3000000000LL, -3000000000LL, INT64_MAX, -2, 2};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out[0].get_int(i), i32[i]) << values[i];
    EXPECT_EQ(out[1].get_int(i), i64[i]) << values[i];
  }
}

// Scalars of every kind, converted to every compute dtype as Scalar::to<T>.
TEST(CodegenSingleOp, ScalarOperandsOfEveryKind) {
  const std::pair<ScalarType, Scalar> scalars[] = {
      {kFloat64, Scalar(2.75)}, {kFloat64, Scalar(-1e10)}, {kFloat32, Scalar(0.1)},
      {kInt64, Scalar(std::int64_t{-5})}, {kInt64, Scalar(std::int64_t{(1LL << 40) + 3})}, {kBool, Scalar(true)}};
  for (ScalarType t : kDtypes)
    for (const auto& [kind, value] : scalars) {
      if (!is_floating_point(t) && kind != kBool && value.to_double() < -1e9) continue;  // UB in tier 0
      SpecBuilder b({19});
      b.output(b.op(OpId::Add, t, {b.input(t), b.scalar(kind)}), t);
      check_kernel(b.spec(), bind(b.spec(), {value}), std::string("add scalar to ") + to_string(t));
    }
}

// Every pair of edge values (NaN, +-inf, +-0, denormal, extremes, small
// exponents) through every binary op: a grid with one operand broadcast
// along rows and the other along columns.
Buffer edge_values(ScalarType t) {
  const double inf = INFINITY;
  const std::vector<double> floats = {NAN, inf, -inf, 0.0, -0.0, 1, -1, 0.5, 2, -2.5, 3, 1e-3,
                                      t == kFloat32 ? 1e-40 : 1e-310, t == kFloat32 ? 3e38 : 1e308, -7.25, 1e30};
  const std::int64_t lo = t == kInt32 ? INT32_MIN : INT64_MIN, hi = t == kInt32 ? INT32_MAX : INT64_MAX;
  const std::vector<std::int64_t> ints = {lo, hi, 0, 1, -1, 2, -2, 3, 31, 32, 63, 64, -3, 100000, lo + 1, 7};
  Buffer b(t, 16);
  for (std::int64_t i = 0; i < 16; ++i) {
    if (t == kBool) b.set_int(i, i & 1);
    else if (is_floating_point(t)) b.set_float(i, floats[i]);
    else b.set_int(i, ints[i]);
  }
  return b;
}

TEST(CodegenSingleOp, EdgeValuePairs) {
  for (OpId op : fusible_ops()) {
    const int arity = trace::info(op).arity;
    for (ScalarType t : kDtypes) {
      if ((tier0_dtypes(op) & dtype_bit(t)) == 0 || op == OpId::Copy) continue;
      SpecBuilder b({16, 16});
      std::vector<ArgRef> args;
      if (op == OpId::Where) args.push_back(b.input(kBool));
      args.push_back(b.input(t, {1, 0}));
      if (arity >= 2) args.push_back(b.input(t, {0, 1}));
      const ArgRef r = b.op(op, t, args, op == OpId::Gelu ? 1 : 0);
      b.output(r, b.spec().instrs.back().out_dtype);
      Bindings data = bind(b.spec());
      for (std::size_t k = op == OpId::Where ? 1 : 0; k < data.inputs.size(); ++k) data.inputs[k] = edge_values(t);
      check_kernel(b.spec(), data, "edge values of " + label(op, t));
    }
  }
}

}  // namespace
}  // namespace kiln::jit::codegen_test
