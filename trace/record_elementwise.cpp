// Elementwise, creation and copy ops: broadcasting, dtype rules, casts.
#include <kiln/error.h>

#include "trace/record.h"
#include "trace/record_util.h"
#include "trace/strided_read.h"
#include "trace/trace_buffer.h"

namespace kiln::trace {
namespace {

struct Dtypes {
  ScalarType compute;  // what tensor operands are converted to and the kernel computes in
  ScalarType out;      // what the result stores
};

// "Bool [2] and Float [3, 2]", numbers as "a number".
std::string describe_operands(std::initializer_list<Input> inputs) {
  std::string out;
  for (const Input& in : inputs) {
    if (!out.empty()) out += " and ";
    out += in.tensor ? detail::cat(in.tensor->dtype, " ", in.tensor->geo.shape()) : std::string("a number");
  }
  return out;
}

// Integer fmod, remainder and floor_divide by zero: LibTorch's
// ZeroDivisionError, thrown here when the divisor's values are known (a
// number, or a tensor no trace buffer still has to write); else the tier-0
// kernel throws when the segment runs (integer division never fuses).
void check_integer_divisor(OpId op, std::initializer_list<Input> inputs, ScalarType t) {
  if ((op != OpId::Fmod && op != OpId::Remainder && op != OpId::FloorDivide) || is_floating_point(t)) return;
  const Input& divisor = inputs.begin()[1];
  bool zero = false;
  if (!divisor.tensor) {
    zero = divisor.scalar.to_long() == 0;
  } else {
    if (!is_settled(*divisor.tensor)) return;
    for (std::int64_t v : read_elements<std::int64_t>(*divisor.tensor)) zero |= v == 0;
  }
  if (zero)
    throw ValueError(detail::cat("[", name(op), "] ZeroDivisionError: integer division by zero (operands ",
                                 describe_operands(inputs), ")"));
}

Dtypes resolve_dtypes(OpId op, std::initializer_list<Input> inputs) {
  const OpInfo& oi = info(op);
  if (oi.rule == DtypeRule::Where) {
    const Input& cond = *inputs.begin();
    if (!cond.tensor || cond.tensor->dtype != ScalarType::Bool)
      throw DtypeError(detail::cat("[where] the condition must be a Bool tensor, got ",
                                   cond.tensor ? to_string(cond.tensor->dtype) : "a number"));
    ScalarType t = result_type({*(inputs.begin() + 1), *(inputs.begin() + 2)});
    return {t, t};
  }
  if (op == OpId::Sub)  // LibTorch rejects a bool operand on either side, not only two
    for (const Input& in : inputs)
      if (in.tensor && in.tensor->dtype == ScalarType::Bool)
        throw DtypeError(detail::cat(
            "[sub] Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead. (operands ", describe_operands(inputs), ")"));
  ScalarType t = result_type(inputs);
  switch (oi.rule) {
    case DtypeRule::Promote: return {t, t};
    case DtypeRule::PromoteNoBool:
      if (t == ScalarType::Bool)
        throw DtypeError(detail::cat("[", oi.name, "] is not supported for Bool tensors",
                                     op == OpId::Sub ? "; use logical_xor or ^ instead" : ""));
      check_integer_divisor(op, inputs, t);
      return {t, t};
    case DtypeRule::Float: {
      ScalarType f = is_floating_point(t) ? t : kDefaultFloat;
      return {f, f};
    }
    case DtypeRule::Compare: return {t, ScalarType::Bool};
    case DtypeRule::Logical: return {ScalarType::Bool, ScalarType::Bool};
    default: KILN_CHECK(false, "op ", oi.name, " is not elementwise");
  }
}

// Torch's canCast: no floating result into an integral tensor, and nothing
// but bool into a bool tensor.
bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

// The node of an elementwise op over `inputs` broadcast to `shape`; tensors
// of another dtype are converted first (kept alive in `holders`).
Node build_node(OpId op, std::initializer_list<Input> inputs, Attrs attrs, const Dtypes& dt, IntArrayRef shape,
                const TensorImpl** ins, TensorRef* holders) {
  Node node;
  node.op = op;
  node.dtype = dt.compute;
  node.arity = static_cast<std::uint8_t>(inputs.size());
  node.attrs = attrs;
  int k = 0;
  for (const Input& in : inputs) {
    if (in.tensor) {
      ScalarType want = (op == OpId::Where && k == 0) ? ScalarType::Bool : dt.compute;
      const TensorImpl* t = in.tensor;
      if (t->dtype != want) {
        holders[k] = convert(*t, want);
        t = holders[k].get();
      }
      ins[k] = t;
      node.in[k] = tensor_operand(*t, broadcast_geometry(t->geo, shape));
    } else {
      ins[k] = nullptr;
      node.in[k].dtype = dt.compute;
      node.in[k].scalar = in.scalar;
    }
    ++k;
  }
  return node;
}

Geometry broadcast_shape(std::initializer_list<Input> inputs, const char* op) {
  Geometry shape;
  bool first = true;
  for (const Input& in : inputs) {
    if (!in.tensor) continue;
    if (first) shape = in.tensor->geo;
    else broadcast_into(shape, in.tensor->geo.shape(), op);
    first = false;
  }
  return shape;
}

}  // namespace

TensorRef elementwise(OpId op, std::initializer_list<Input> inputs, Attrs attrs) {
  KILN_CHECK(static_cast<int>(inputs.size()) == info(op).arity, "arity of ", name(op));
  Geometry shape = broadcast_shape(inputs, name(op));
  Dtypes dt = resolve_dtypes(op, inputs);
  const TensorImpl* ins[kMaxArity] = {};
  TensorRef holders[kMaxArity];
  Node node = build_node(op, inputs, attrs, dt, shape.shape(), ins, holders);
  TensorRef out = fresh_output(shape.shape(), dt.out, name(op));
  node.out = tensor_operand(*out, out->geo);
  push(node, ins, out->storage, true);
  return out;
}

void elementwise_into(OpId op, const char* name, const TensorImpl& self, std::initializer_list<Input> inputs,
                      Attrs attrs) {
  Geometry shape = broadcast_shape(inputs, name);
  if (!(shape.shape() == self.geo.shape()))
    throw ShapeError(detail::cat("[", name, "] output with shape ", self.geo.shape(),
                                 " doesn't match the broadcast shape ", shape.shape()));
  Dtypes dt = resolve_dtypes(op, inputs);
  if (!can_cast(dt.out, self.dtype))
    throw DtypeError(detail::cat("[", name, "] result type ", dt.out, " can't be cast to the desired output type ",
                                 self.dtype));
  check_writable(self, name);
  if (dt.out != self.dtype) {
    copy_into(self, *elementwise(op, inputs, attrs));
    return;
  }
  const TensorImpl* ins[kMaxArity] = {};
  TensorRef holders[kMaxArity];
  Node node = build_node(op, inputs, attrs, dt, shape.shape(), ins, holders);
  node.out = tensor_operand(self, self.geo);
  push(node, ins, self.storage, false);
  self.storage->bump_version();
}

TensorRef create(OpId op, IntArrayRef shape, ScalarType dtype, std::initializer_list<Scalar> params,
                 const char* user_op) {
  KILN_CHECK(static_cast<int>(params.size()) == info(op).arity, "arity of ", name(op));
  TensorRef out = fresh_output(shape, dtype, user_op);
  Node node;
  node.op = op;
  node.dtype = dtype;
  node.arity = static_cast<std::uint8_t>(params.size());
  const TensorImpl* ins[kMaxArity] = {};
  int k = 0;
  for (const Scalar& s : params) {
    node.in[k].scalar = s;
    node.in[k].dtype = s.is_floating_point() ? ScalarType::Float64 : ScalarType::Int64;
    ++k;
  }
  node.out = tensor_operand(*out, out->geo);
  push(node, ins, out->storage, true);
  return out;
}

void fill_into(const TensorImpl& self, Scalar value, const char* op) {
  check_writable(self, op);
  Node node;
  node.op = OpId::Fill;
  node.dtype = self.dtype;
  node.arity = 1;
  node.in[0].scalar = value;
  node.in[0].dtype = self.dtype;
  node.out = tensor_operand(self, self.geo);
  const TensorImpl* ins[kMaxArity] = {};
  push(node, ins, self.storage, false);
  self.storage->bump_version();
}

TensorRef convert(const TensorImpl& x, ScalarType dtype) {
  TensorRef out = fresh_output(x.geo.shape(), dtype, "copy");
  Node node;
  node.op = OpId::Copy;
  node.dtype = dtype;
  node.arity = 1;
  node.in[0] = tensor_operand(x, x.geo);
  node.out = tensor_operand(*out, out->geo);
  const TensorImpl* ins[kMaxArity] = {&x};
  push(node, ins, out->storage, true);
  return out;
}

void copy_into(const TensorImpl& self, const TensorImpl& src) {
  Geometry shape = self.geo;
  broadcast_into(shape, src.geo.shape(), "copy_");
  if (!(shape.shape() == self.geo.shape()))
    throw ShapeError(detail::cat("[copy_] source of shape ", src.geo.shape(),
                                 " cannot be broadcast to the destination shape ", self.geo.shape()));
  check_writable(self, "copy_");
  Node node;
  node.op = OpId::Copy;
  node.dtype = self.dtype;
  node.arity = 1;
  node.in[0] = tensor_operand(src, broadcast_geometry(src.geo, self.geo.shape()));
  node.out = tensor_operand(self, self.geo);
  const TensorImpl* ins[kMaxArity] = {&src};
  push(node, ins, self.storage, false);
  self.storage->bump_version();
}

void materialize(const TensorImpl& x, profiler::CutReason why, bool for_write) {
  prepare_access(*x.storage, for_write, why);
}

namespace {

// `dim` in [0, n), or -1 when out of range; a zero-dim tensor accepts dim 0
// and -1, as in LibTorch.
int wrapped(std::int64_t dim, int ndim) {
  const int n = ndim == 0 ? 1 : ndim;
  if (dim < -n || dim >= n) return -1;
  return static_cast<int>(dim < 0 ? dim + n : dim);
}

[[noreturn]] void dim_out_of_range(std::int64_t dim, int ndim, const char* op, const std::string& tensor) {
  const int n = ndim == 0 ? 1 : ndim;
  throw IndexError(detail::cat("[", op, "] dim ", dim, " is out of range for a tensor of ", tensor, " (expected in [",
                               -n, ", ", n - 1, "])"));
}

}  // namespace

int wrap_dim(std::int64_t dim, int ndim, const char* op) {
  const int d = wrapped(dim, ndim);
  if (d < 0) dim_out_of_range(dim, ndim, op, detail::cat(ndim, " dimensions"));
  return d;
}

int wrap_dim(std::int64_t dim, const Geometry& geo, const char* op) {
  const int d = wrapped(dim, geo.ndim);
  if (d < 0) dim_out_of_range(dim, geo.ndim, op, detail::cat("shape ", geo.shape()));
  return d;
}

}  // namespace kiln::trace
