// The scalar evaluator of a KernelSpec (see codegen_harness.h): one element
// at a time, double math for floats rounded to each instruction's dtype,
// wrapping integer arithmetic done in uint64 and truncated, bools as 0/1.
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include <kiln/error.h>

#include "jit/fusion/kernel_phases.h"
#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

// One value; the field of its dtype is the meaningful one.
struct Value {
  double f = 0;
  std::int64_t i = 0;
  bool b = false;
};

bool is_float(ScalarType t) { return is_floating_point(t); }

double round_to(ScalarType t, double x) { return t == kFloat32 ? static_cast<double>(static_cast<float>(x)) : x; }

std::int64_t wrap_to(ScalarType t, std::uint64_t x) {
  return t == kInt32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(x)) : static_cast<std::int64_t>(x);
}

Value from_float(double f) { return Value{f, 0, false}; }
Value from_int(std::int64_t i) { return Value{0, i, false}; }
Value from_bool(bool b) { return Value{0, 0, b}; }

bool truth(Value v, ScalarType t) { return t == kBool ? v.b : is_float(t) ? v.f != 0 : v.i != 0; }

// float -> int saturates, NaN -> 0 (the JIT's documented llvm.fptosi.sat).
std::int64_t saturate(double f, ScalarType to) {
  if (std::isnan(f)) return 0;
  const double lo = to == kInt32 ? -2147483648.0 : -9223372036854775808.0;
  if (f <= lo) return to == kInt32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
  if (f >= -lo) return to == kInt32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(f);
}

Value convert(Value v, ScalarType from, ScalarType to) {
  if (from == to) return v;
  if (to == kBool) return from_bool(truth(v, from));
  if (from == kBool) return is_float(to) ? from_float(v.b) : from_int(v.b);
  if (is_float(from)) return is_float(to) ? from_float(round_to(to, v.f)) : from_int(saturate(v.f, to));
  if (to == kFloat32) return from_float(static_cast<float>(v.i));
  if (to == kFloat64) return from_float(static_cast<double>(v.i));
  return from_int(wrap_to(to, static_cast<std::uint64_t>(v.i)));
}

Value scalar_value(const Scalar& s, ScalarType to) {
  switch (to) {
    case kBool: return from_bool(s.to<bool>());
    case kInt32: return from_int(s.to<std::int32_t>());
    case kInt64: return from_int(s.to<std::int64_t>());
    case kFloat32: return from_float(s.to<float>());
    case kFloat64: return from_float(s.to<double>());
  }
  return {};
}

Value read(const Buffer& buffer, std::int64_t i) {
  if (buffer.dtype == kBool) return from_bool(buffer.get_int(i) != 0);
  if (is_float(buffer.dtype)) return from_float(buffer.get_float(i));
  return from_int(buffer.get_int(i));
}

void write(Buffer& buffer, std::int64_t i, Value v) {
  if (buffer.dtype == kBool) buffer.set_int(i, v.b);
  else if (is_float(buffer.dtype)) buffer.set_float(i, v.f);
  else buffer.set_int(i, v.i);
}

std::int64_t integer_pow(std::int64_t base, std::int64_t exponent, ScalarType t) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) ? -1 : 1;
    return 0;
  }
  std::uint64_t result = 1, b = static_cast<std::uint64_t>(base);
  for (std::uint64_t e = static_cast<std::uint64_t>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return wrap_to(t, result);
}

double gelu(double x, bool tanh_form, ScalarType t) {
  auto r = [t](double v) { return round_to(t, v); };
  const double half = r(0.5), one = r(1);
  double f;
  if (tanh_form) {
    const double k = r(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    const double cube = r(r(r(r(0.044715) * x) * x) * x);
    f = r(std::tanh(r(k * r(x + cube))));
  } else {
    f = r(std::erf(r(x * r(std::numbers::sqrt2 / 2))));
  }
  return r(r(half * x) * r(one + f));
}

// tier 0's maximum/minimum: NaN wins, else the strict comparison picks.
double extremum(double a, double b, bool maximum) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return (maximum ? a > b : a < b) ? a : b;
}

template <class T>
bool compare(OpId op, T a, T b) {
  switch (op) {
    case OpId::Eq: return a == b;
    case OpId::Ne: return a != b;
    case OpId::Lt: return a < b;
    case OpId::Le: return a <= b;
    case OpId::Gt: return a > b;
    default: return a >= b;
  }
}

Value apply_float(const KernelInstr& in, const Value* a) {
  const ScalarType t = in.dtype;
  auto r = [t](double v) { return from_float(round_to(t, v)); };
  const double x = a[0].f;
  switch (in.op) {
    case OpId::Neg: return from_float(-x);
    case OpId::Abs: return from_float(std::fabs(x));
    case OpId::Exp: return r(std::exp(x));
    case OpId::Log: return r(std::log(x));
    case OpId::Log1p: return r(std::log1p(x));
    case OpId::Sqrt: return r(std::sqrt(x));
    case OpId::Rsqrt: return r(1 / round_to(t, std::sqrt(x)));
    case OpId::Reciprocal: return r(1 / x);
    case OpId::Sin: return r(std::sin(x));
    case OpId::Cos: return r(std::cos(x));
    case OpId::Tanh: return r(std::tanh(x));
    case OpId::Erf: return r(std::erf(x));
    case OpId::Floor: return r(std::floor(x));
    case OpId::Ceil: return r(std::ceil(x));
    case OpId::Round: return r(std::nearbyint(x));
    case OpId::Trunc: return r(std::trunc(x));
    case OpId::Sigmoid: return r(1 / round_to(t, 1 + round_to(t, std::exp(-x))));
    case OpId::Relu: return from_float(x < 0 ? 0.0 : x);
    case OpId::Gelu: return from_float(gelu(x, in.attr == 1, t));
    case OpId::Add: return r(x + a[1].f);
    case OpId::Sub: return r(x - a[1].f);
    case OpId::Mul: return r(x * a[1].f);
    case OpId::Div: return r(x / a[1].f);
    case OpId::Fmod: return r(std::fmod(x, a[1].f));
    case OpId::Remainder: {
      const double mod = std::fmod(x, a[1].f);
      return r(mod != 0 && (a[1].f < 0) != (mod < 0) ? mod + a[1].f : mod);
    }
    case OpId::FloorDivide: {
      const double y = a[1].f;
      if (y == 0) return r(x / y);
      const double mod = std::fmod(x, y);
      double div = (x - mod) / y;
      if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;
      if (div == 0) return r(std::copysign(0.0, x / y));
      const double fl = std::floor(div);
      return r(div - fl > 0.5 ? fl + 1 : fl);
    }
    case OpId::Pow: return r(std::pow(x, a[1].f));
    case OpId::Maximum: return from_float(extremum(x, a[1].f, true));
    case OpId::Minimum: return from_float(extremum(x, a[1].f, false));
    default: break;
  }
  throw InternalError(std::string("evaluator: no float form of ") + trace::name(in.op));
}

Value apply_int(const KernelInstr& in, const Value* a) {
  const ScalarType t = in.dtype;
  const std::uint64_t x = static_cast<std::uint64_t>(a[0].i), y = static_cast<std::uint64_t>(a[1].i);
  switch (in.op) {
    case OpId::Neg: return from_int(wrap_to(t, 0 - x));
    case OpId::Abs: return from_int(a[0].i < 0 ? wrap_to(t, 0 - x) : a[0].i);
    case OpId::Relu: return from_int(a[0].i < 0 ? 0 : a[0].i);
    case OpId::Add: return from_int(wrap_to(t, x + y));
    case OpId::Sub: return from_int(wrap_to(t, x - y));
    case OpId::Mul: return from_int(wrap_to(t, x * y));
    case OpId::Pow: return from_int(integer_pow(a[0].i, a[1].i, t));
    case OpId::Maximum: return from_int(a[0].i > a[1].i ? a[0].i : a[1].i);
    case OpId::Minimum: return from_int(a[0].i < a[1].i ? a[0].i : a[1].i);
    default: break;
  }
  throw InternalError(std::string("evaluator: no integer form of ") + trace::name(in.op));
}

Value apply_bool(const KernelInstr& in, const Value* a) {
  switch (in.op) {
    case OpId::Add:
    case OpId::Maximum: return from_bool(a[0].b || a[1].b);
    case OpId::Mul:
    case OpId::Minimum: return from_bool(a[0].b && a[1].b);
    default: break;
  }
  throw InternalError(std::string("evaluator: no bool form of ") + trace::name(in.op));
}

Value apply(const KernelInstr& in, const Value* a) {
  const ScalarType t = in.dtype;
  switch (in.op) {
    case OpId::Copy: return convert(a[0], t, in.out_dtype);
    case OpId::Where: return a[0].b ? a[1] : a[2];
    case OpId::LogicalNot: return from_bool(!truth(a[0], t));
    case OpId::LogicalAnd: return from_bool(truth(a[0], t) && truth(a[1], t));
    case OpId::LogicalOr: return from_bool(truth(a[0], t) || truth(a[1], t));
    case OpId::Eq:
    case OpId::Ne:
    case OpId::Lt:
    case OpId::Le:
    case OpId::Gt:
    case OpId::Ge:
      if (is_float(t)) return from_bool(compare(in.op, a[0].f, a[1].f));
      if (t == kBool) return from_bool(compare(in.op, int(a[0].b), int(a[1].b)));
      return from_bool(compare(in.op, a[0].i, a[1].i));
    default: break;
  }
  if (is_float(t)) return apply_float(in, a);
  if (t == kBool) return apply_bool(in, a);
  return apply_int(in, a);
}

std::int64_t offset(const KernelSpec& spec, const KernelOperand& operand, const std::int64_t* index) {
  std::int64_t off = 0;
  for (int d = 0; d < spec.ndim; ++d) off += index[d] * operand.strides[d];
  return off;
}

}  // namespace

bool has_transcendental(const KernelSpec& spec) {
  for (const KernelInstr& in : spec.instrs)
    if (calls_math_function(in)) return true;
  return false;
}

std::vector<Buffer> evaluate(const KernelSpec& spec, const Bindings& b, std::int64_t begin, std::int64_t end) {
  std::vector<Buffer> outs;
  for (const KernelOutput& out : spec.outputs) outs.emplace_back(out.mem.dtype, extent(spec, out.mem) + 16);
  std::int64_t index[trace::kMaxDims] = {};
  std::vector<Value> values(spec.instrs.size());
  if (end < 0) end = spec.numel();
  for (std::int64_t flat = begin; flat < end; ++flat) {
    std::int64_t rest = flat;
    for (int d = spec.ndim - 1; d >= 0; --d) {
      index[d] = rest % spec.sizes[d];
      rest /= spec.sizes[d];
    }
    for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
      const KernelInstr& in = spec.instrs[i];
      Value args[3];
      for (int k = 0; k < in.arity; ++k) {
        const ArgRef& arg = in.args[k];
        const ScalarType to = in.op == OpId::Where && k == 0 ? kBool : in.dtype;
        if (arg.kind == ArgRef::Scalar) {
          args[k] = scalar_value(b.scalars[arg.index], to);
        } else if (arg.kind == ArgRef::Instr) {
          args[k] = convert(values[arg.index], spec.instrs[arg.index].out_dtype, to);
        } else {
          const Buffer& buffer = b.inputs[arg.index];
          args[k] = convert(read(buffer, offset(spec, spec.inputs[arg.index], index)), buffer.dtype, to);
        }
      }
      values[i] = apply(in, args);
    }
    for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
      const KernelOutput& out = spec.outputs[k];
      const Value v = convert(values[out.instr], spec.instrs[out.instr].out_dtype, out.mem.dtype);
      write(outs[k], offset(spec, out.mem, index), v);
    }
  }
  return outs;
}

}  // namespace kiln::jit::codegen_test
