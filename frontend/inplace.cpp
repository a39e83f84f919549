// In-place ops: the result is written through the tensor's own view, so
// every other view of the same storage sees it.
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/tensor.h>

#include "frontend/autograd/formulas.h"
#include "frontend/autograd/function_node.h"
#include "frontend/autograd/op_node.h"
#include "frontend/handle.h"

namespace kiln {

using frontend::unwrap;
using trace::OpId;

using frontend::is_one;
using frontend::scaled;

namespace {

void into(OpId op, const char* name, const Tensor& self, std::initializer_list<trace::Input> inputs) {
  const auto& s = unwrap(self, name);
  if (!autograd::grad_mode() || !(s.autograd || autograd::needs_history(inputs))) {
    trace::elementwise_into(op, name, s, inputs);
    return;
  }
  bool track = autograd::needs_history(inputs);
  Tensor old = autograd::prepare_inplace(op, self, name, track);
  trace::elementwise_into(op, name, s, inputs);
  if (track) autograd::record_inplace(op, inputs, {}, self, old);
}

// fill_ and copy_ replace the value: self's old value gets no gradient.
void record_overwrite(const char* node, const Tensor& self, const Tensor* src) {
  std::vector<Tensor> inputs{self};
  if (src) inputs.push_back(*src);
  if (!autograd::any_requires_grad(inputs) || !self.is_floating_point()) return;
  autograd::edge_list edges;
  for (const Tensor& t : inputs) edges.push_back(autograd::gradient_edge(*t.impl()));
  std::vector<std::int64_t> src_shape = src ? src->sizes().vec() : std::vector<std::int64_t>{};
  ScalarType src_dtype = src ? src->dtype() : self.dtype();
  auto fn = std::make_shared<autograd::FunctionNode>(
      node, std::move(edges), [src_shape, src_dtype, has_src = src != nullptr](const Tensor& g,
                                                                               const autograd::variable_list&) {
        if (!has_src) return autograd::variable_list{Tensor()};
        Tensor from_src = autograd::sum_to(g, src_shape);
        return autograd::variable_list{Tensor(), from_src.dtype() == src_dtype ? from_src : from_src.to(src_dtype)};
      });
  autograd::rebase_history(self, std::move(fn));
}

}  // namespace

Tensor& Tensor::add_(const Tensor& o, Scalar alpha) {
  into(OpId::Add, "add_", *this, {checked(), unwrap(is_one(alpha) ? o : o.mul(alpha), "add_")});
  return *this;
}
Tensor& Tensor::add_(Scalar o, Scalar alpha) {
  into(OpId::Add, "add_", *this, {checked(), scaled(o, alpha)});
  return *this;
}
Tensor& Tensor::sub_(const Tensor& o, Scalar alpha) {
  into(OpId::Sub, "sub_", *this, {checked(), unwrap(is_one(alpha) ? o : o.mul(alpha), "sub_")});
  return *this;
}
Tensor& Tensor::sub_(Scalar o, Scalar alpha) {
  into(OpId::Sub, "sub_", *this, {checked(), scaled(o, alpha)});
  return *this;
}
Tensor& Tensor::mul_(const Tensor& o) {
  into(OpId::Mul, "mul_", *this, {checked(), unwrap(o, "mul_")});
  return *this;
}
Tensor& Tensor::mul_(Scalar o) {
  into(OpId::Mul, "mul_", *this, {checked(), o});
  return *this;
}
Tensor& Tensor::div_(const Tensor& o) {
  into(OpId::Div, "div_", *this, {checked(), unwrap(o, "div_")});
  return *this;
}
Tensor& Tensor::div_(Scalar o) {
  into(OpId::Div, "div_", *this, {checked(), o});
  return *this;
}
#define KILN_DIVISION_INPLACE(method, op)                  \
  Tensor& Tensor::method(const Tensor& o) {                 \
    into(OpId::op, #method, *this, {checked(), unwrap(o, #method)}); \
    return *this;                                            \
  }                                                          \
  Tensor& Tensor::method(Scalar o) {                        \
    into(OpId::op, #method, *this, {checked(), o});          \
    return *this;                                            \
  }
KILN_DIVISION_INPLACE(fmod_, Fmod)
KILN_DIVISION_INPLACE(remainder_, Remainder)
KILN_DIVISION_INPLACE(floor_divide_, FloorDivide)
#undef KILN_DIVISION_INPLACE
Tensor& Tensor::relu_() {
  into(OpId::Relu, "relu_", *this, {checked()});
  return *this;
}
Tensor& Tensor::clamp_(std::optional<Scalar> lo, std::optional<Scalar> hi) {
  if (!lo && !hi) throw ValueError("[clamp_] at least one of min and max must be given");
  if (lo) into(OpId::Maximum, "clamp_", *this, {checked(), *lo});
  if (hi) into(OpId::Minimum, "clamp_", *this, {checked(), *hi});
  return *this;
}
Tensor& Tensor::zero_() { return fill_(0); }
Tensor& Tensor::fill_(Scalar value) {
  const auto& s = unwrap(*this, "fill_");
  bool tracked = autograd::grad_mode() && s.autograd;
  if (tracked) autograd::prepare_inplace(OpId::Fill, *this, "fill_", false);
  trace::fill_into(s, value, "fill_");
  if (tracked) record_overwrite("FillBackward0", *this, nullptr);
  return *this;
}
Tensor& Tensor::copy_(const Tensor& src) {
  const auto &s = unwrap(*this, "copy_"), &from = unwrap(src, "copy_");
  bool tracked = autograd::grad_mode() && (s.autograd || from.autograd);
  if (tracked) autograd::prepare_inplace(OpId::Copy, *this, "copy_", false);
  trace::copy_into(s, from);
  if (tracked) record_overwrite("CopyBackwards", *this, &src);
  return *this;
}

namespace {

// The values are drawn in float64 and written, as nn::init does; an integer
// tensor has no uniform or normal distribution (LibTorch: "not implemented").
void check_floating(const Tensor& self, const char* name) {
  unwrap(self, name);
  if (!self.is_floating_point())
    throw DtypeError(detail::cat("[", name, "] needs a floating-point tensor, got ", self.dtype(), " ",
                                 self.sizes()));
}

}  // namespace

Tensor& Tensor::uniform_(double from, double to) {
  check_floating(*this, "uniform_");
  if (!(from <= to))
    throw ValueError(detail::cat("[uniform_] expects from <= to, but got from=", from, " > to=", to));
  return copy_(rand(sizes(), kFloat64) * (to - from) + from);
}
Tensor& Tensor::normal_(double mean, double std) {
  check_floating(*this, "normal_");
  if (!(std >= 0)) throw ValueError(detail::cat("[normal_] expects std >= 0.0, but found std ", std));
  return copy_(randn(sizes(), kFloat64) * std + mean);
}

#define KILN_COMPARE_INPLACE(name)                                                 \
  Tensor& Tensor::name##_(const Tensor& other) { return copy_(this->name(other)); } \
  Tensor& Tensor::name##_(Scalar other) { return copy_(this->name(other)); }
KILN_COMPARE_INPLACE(eq)
KILN_COMPARE_INPLACE(ne)
KILN_COMPARE_INPLACE(lt)
KILN_COMPARE_INPLACE(le)
KILN_COMPARE_INPLACE(gt)
KILN_COMPARE_INPLACE(ge)
#undef KILN_COMPARE_INPLACE

}  // namespace kiln
