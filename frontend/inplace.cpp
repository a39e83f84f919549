// In-place ops: the result is written through the tensor's own view, so
// every other view of the same storage sees it.
#include <kiln/error.h>
#include <kiln/frontend/tensor.h>

#include "frontend/handle.h"

namespace kiln {

using frontend::unwrap;
using trace::OpId;

using frontend::is_one;
using frontend::scaled;

namespace {

void into(OpId op, const char* name, const Tensor& self, std::initializer_list<trace::Input> inputs) {
  trace::elementwise_into(op, name, unwrap(self, name), inputs);
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
  trace::fill_into(unwrap(*this, "fill_"), value, "fill_");
  return *this;
}
Tensor& Tensor::copy_(const Tensor& src) {
  trace::copy_into(unwrap(*this, "copy_"), unwrap(src, "copy_"));
  return *this;
}

}  // namespace kiln
