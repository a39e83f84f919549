// Elementwise ops: Tensor methods, free functions and operators, each a
// thin call into the recorder (trace/record.h) with its registry OpId.
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/function_node.h"
#include "frontend/handle.h"

namespace kiln {

using frontend::apply;
using frontend::unwrap;
using frontend::is_one;
using frontend::scaled;
using trace::OpId;


// Unary ops: method and free function from one table.
#define KILN_UNARY(method, op)                                                          \
  Tensor Tensor::method() const { return apply(OpId::op, {unwrap(*this, #method)}); } \
  Tensor method(const Tensor& x) { return x.method(); }
KILN_UNARY(neg, Neg)
KILN_UNARY(abs, Abs)
KILN_UNARY(exp, Exp)
KILN_UNARY(log, Log)
KILN_UNARY(log1p, Log1p)
KILN_UNARY(sqrt, Sqrt)
KILN_UNARY(rsqrt, Rsqrt)
KILN_UNARY(reciprocal, Reciprocal)
KILN_UNARY(sin, Sin)
KILN_UNARY(cos, Cos)
KILN_UNARY(tanh, Tanh)
KILN_UNARY(erf, Erf)
KILN_UNARY(sigmoid, Sigmoid)
KILN_UNARY(relu, Relu)
KILN_UNARY(logical_not, LogicalNot)
#undef KILN_UNARY

// floor, ceil, round (halves to even), trunc: integers are whole already
// (a copy, as LibTorch); bool is rejected by the op.
#define KILN_ROUNDING(method, op)                                                    \
  Tensor Tensor::method() const {                                                    \
    const auto& x = unwrap(*this, #method);                                          \
    return is_floating_point() || x.dtype == kBool ? apply(OpId::op, {x}) : clone(); \
  }                                                                                  \
  Tensor& Tensor::method##_() { return copy_(method()); }                            \
  Tensor method(const Tensor& x) { return x.method(); }
KILN_ROUNDING(floor, Floor)
KILN_ROUNDING(ceil, Ceil)
KILN_ROUNDING(round, Round)
KILN_ROUNDING(trunc, Trunc)
#undef KILN_ROUNDING

// -1, 0 or 1 (0 for NaN, as LibTorch); the gradient is zeros.
Tensor Tensor::sign() const {
  const auto& x = unwrap(*this, "sign");
  if (x.dtype == kBool) return clone();
  Tensor out;
  const bool track = autograd::any_requires_grad({*this});
  {
    autograd::AutoGradMode mode(false);
    out = (*this > 0).to(x.dtype) - (*this < 0).to(x.dtype);
  }
  if (track)
    autograd::record_function("SignBackward0", {*this}, out, [](const Tensor& g, const autograd::variable_list&) {
      return autograd::variable_list{zeros_like(g)};
    });
  return out;
}
Tensor& Tensor::sign_() { return copy_(sign()); }
Tensor sign(const Tensor& x) { return x.sign(); }

// Binary ops taking a tensor or a number on the right.
#define KILN_BINARY(method, op)                                                                              \
  Tensor Tensor::method(const Tensor& o) const { return apply(OpId::op, {unwrap(*this, #method), unwrap(o, #method)}); } \
  Tensor Tensor::method(Scalar o) const { return apply(OpId::op, {unwrap(*this, #method), o}); }                \
  Tensor method(const Tensor& a, const Tensor& b) { return a.method(b); }
KILN_BINARY(mul, Mul)
KILN_BINARY(div, Div)
KILN_BINARY(eq, Eq)
KILN_BINARY(ne, Ne)
KILN_BINARY(lt, Lt)
KILN_BINARY(le, Le)
KILN_BINARY(gt, Gt)
KILN_BINARY(ge, Ge)
#undef KILN_BINARY
Tensor mul(const Tensor& a, Scalar b) { return a.mul(b); }
Tensor div(const Tensor& a, Scalar b) { return a.div(b); }

#define KILN_BINARY_TENSOR(method, op)                                                                       \
  Tensor Tensor::method(const Tensor& o) const { return apply(OpId::op, {unwrap(*this, #method), unwrap(o, #method)}); } \
  Tensor method(const Tensor& a, const Tensor& b) { return a.method(b); }
KILN_BINARY_TENSOR(maximum, Maximum)
KILN_BINARY_TENSOR(minimum, Minimum)
KILN_BINARY_TENSOR(logical_and, LogicalAnd)
KILN_BINARY_TENSOR(logical_or, LogicalOr)
#undef KILN_BINARY_TENSOR

Tensor Tensor::pow(const Tensor& e) const { return apply(OpId::Pow, {unwrap(*this, "pow"), unwrap(e, "pow")}); }
Tensor Tensor::pow(Scalar e) const {
  const auto& x = unwrap(*this, "pow");
  if (is_integral(x.dtype, false) && e.is_integral() && e.to_long() < 0)
    throw ValueError(detail::cat("[pow] integers to negative integer powers are not allowed (", x.dtype, " tensor ",
                                 x.geo.shape(), " ** ", e.to_long(), ")"));
  return apply(OpId::Pow, {x, e});
}
Tensor pow(const Tensor& x, const Tensor& e) { return x.pow(e); }
Tensor pow(const Tensor& x, Scalar e) { return x.pow(e); }
Tensor pow(Scalar base, const Tensor& e) { return apply(OpId::Pow, {base, unwrap(e, "pow")}); }

// add/sub with LibTorch's alpha: a + alpha * b.
Tensor Tensor::add(const Tensor& o, Scalar alpha) const {
  return is_one(alpha) ? apply(OpId::Add, {unwrap(*this, "add"), unwrap(o, "add")}) : add(o.mul(alpha));
}
Tensor Tensor::add(Scalar o, Scalar alpha) const {
  return apply(OpId::Add, {unwrap(*this, "add"), scaled(o, alpha)});
}
Tensor Tensor::sub(const Tensor& o, Scalar alpha) const {
  return is_one(alpha) ? apply(OpId::Sub, {unwrap(*this, "sub"), unwrap(o, "sub")}) : sub(o.mul(alpha));
}
Tensor Tensor::sub(Scalar o, Scalar alpha) const {
  return apply(OpId::Sub, {unwrap(*this, "sub"), scaled(o, alpha)});
}
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) { return a.add(b, alpha); }
Tensor add(const Tensor& a, Scalar b, Scalar alpha) { return a.add(b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) { return a.sub(b, alpha); }
Tensor sub(const Tensor& a, Scalar b, Scalar alpha) { return a.sub(b, alpha); }

Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const {
  if (!lo && !hi) throw ValueError("[clamp] at least one of min and max must be given");
  Tensor out = *this;
  if (lo) out = apply(OpId::Maximum, {unwrap(out, "clamp"), *lo});
  if (hi) out = apply(OpId::Minimum, {unwrap(out, "clamp"), *hi});
  return out;
}
Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) { return x.clamp(lo, hi); }

Tensor gelu(const Tensor& x, const std::string& approximate) {
  if (approximate != "none" && approximate != "tanh")
    throw ValueError(detail::cat("[gelu] approximate must be \"none\" or \"tanh\", got \"", approximate, "\""));
  trace::Attrs attrs;
  attrs.i[0] = approximate == "tanh";
  return apply(OpId::Gelu, {unwrap(x, "gelu")}, attrs);
}
Tensor silu(const Tensor& x) { return x * x.sigmoid(); }
Tensor leaky_relu(const Tensor& x, Scalar negative_slope) {
  if (!x.is_floating_point())
    throw DtypeError(detail::cat("[leaky_relu] needs a floating-point tensor, got ", x.dtype(), " ", x.sizes()));
  return where(x > 0, x, x * negative_slope);
}
Tensor& leaky_relu_(Tensor& x, Scalar negative_slope) { return x.copy_(leaky_relu(x, negative_slope)); }

// -(log1p(exp(-|x|)) + relu(-x)) has kinks at 0 (abs, relu) that cancel in
// the value but not in their gradients: the node has the exact one.
Tensor log_sigmoid(const Tensor& x) {
  bool track = autograd::any_requires_grad({x});
  Tensor out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    out = -((-x.abs()).exp().log1p() + (-x).relu());
  }
  if (track)
    autograd::record_function(
        "LogSigmoidBackward0", {x}, out,
        [](const Tensor& g, const autograd::variable_list& saved) {
          return autograd::variable_list{g * (-saved[0]).sigmoid()};
        },
        {x});
  return out;
}

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) {
  return apply(OpId::Where, {unwrap(c, "where"), unwrap(a, "where"), unwrap(b, "where")});
}
Tensor where(const Tensor& c, const Tensor& a, Scalar b) {
  return apply(OpId::Where, {unwrap(c, "where"), unwrap(a, "where"), b});
}
Tensor where(const Tensor& c, Scalar a, const Tensor& b) {
  return apply(OpId::Where, {unwrap(c, "where"), a, unwrap(b, "where")});
}
Tensor where(const Tensor& c, Scalar a, Scalar b) { return apply(OpId::Where, {unwrap(c, "where"), a, b}); }

Tensor Tensor::to(ScalarType t) const {
  const auto& x = unwrap(*this, "to");
  return x.dtype == t ? *this : frontend::convert(*this, t);
}
Tensor Tensor::to(Device device, ScalarType t, bool, bool copy) const {
  detail::check_device(device, "to");
  Tensor out = to(t);
  return copy && out.is_same(*this) ? clone() : out;
}
Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  return to(device, dtype(), non_blocking, copy);
}
Tensor Tensor::cpu() const { return to(kCPU); }

// Operators.
Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator+(const Tensor& a, Scalar b) { return a.add(b); }
Tensor operator+(Scalar a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator-(const Tensor& a, Scalar b) { return a.sub(b); }
Tensor operator-(Scalar a, const Tensor& b) { return apply(OpId::Sub, {a, unwrap(b, "sub")}); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator*(const Tensor& a, Scalar b) { return a.mul(b); }
Tensor operator*(Scalar a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator/(const Tensor& a, Scalar b) { return a.div(b); }
Tensor operator/(Scalar a, const Tensor& b) { return apply(OpId::Div, {a, unwrap(b, "div")}); }
Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor operator==(const Tensor& a, Scalar b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor operator!=(const Tensor& a, Scalar b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor operator<(const Tensor& a, Scalar b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor operator<=(const Tensor& a, Scalar b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor operator>(const Tensor& a, Scalar b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor operator>=(const Tensor& a, Scalar b) { return a.ge(b); }

}  // namespace kiln
