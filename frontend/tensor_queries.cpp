// Tensor's queries: answered from the handle, never materializing.
#include <kiln/error.h>
#include <kiln/frontend/tensor.h>

#include "frontend/autograd/op_node.h"
#include "frontend/handle.h"

namespace kiln {
namespace frontend {

const trace::TensorImpl& unwrap(const Tensor& t, const char* op) {
  if (!t.defined()) throw ValueError(detail::cat("[", op, "] called on an undefined tensor"));
  return *t.impl();
}

Tensor apply(trace::OpId op, std::initializer_list<trace::Input> inputs, trace::Attrs attrs) {
  Tensor out = wrap(trace::elementwise(op, inputs, attrs));
  if (autograd::needs_history(inputs)) autograd::record_op(op, inputs, attrs, out);
  return out;
}

Tensor convert(const Tensor& x, ScalarType dtype) {
  const auto& impl = unwrap(x, "to");
  Tensor out = wrap(trace::convert(impl, dtype));
  if (autograd::needs_history({impl})) autograd::record_op(trace::OpId::Copy, {impl}, {}, out);
  return out;
}

}  // namespace frontend

using frontend::unwrap;

const trace::TensorImpl& Tensor::checked() const { return unwrap(*this, "tensor"); }

void Tensor::set_data(const Tensor& new_data) const {
  unwrap(*this, "set_data");
  const trace::TensorImpl& src = unwrap(new_data, "set_data");
  trace::TensorImpl& self = *impl_;
  self.storage = src.storage;
  self.geo = src.geo;
  self.dtype = src.dtype;
}

IntArrayRef Tensor::sizes() const { return checked().geo.shape(); }
IntArrayRef Tensor::strides() const { return checked().geo.stride(); }
std::int64_t Tensor::dim() const { return checked().geo.ndim; }
std::int64_t Tensor::numel() const { return checked().geo.numel(); }
ScalarType Tensor::dtype() const { return checked().dtype; }
Device Tensor::device() const {
  checked();
  return kCPU;
}
bool Tensor::is_contiguous() const { return checked().geo.is_contiguous(); }

std::int64_t Tensor::size(std::int64_t d) const {
  const auto& g = unwrap(*this, "size").geo;
  if (g.ndim == 0) throw IndexError("[size] a zero-dim tensor has no dims");
  return g.sizes[trace::wrap_dim(d, g, "size")];
}

std::int64_t Tensor::stride(std::int64_t d) const {
  const auto& g = unwrap(*this, "stride").geo;
  if (g.ndim == 0) throw IndexError("[stride] a zero-dim tensor has no dims");
  return g.strides[trace::wrap_dim(d, g, "stride")];
}

bool Tensor::is_same_storage(const Tensor& other) const {
  return defined() && other.defined() && impl_->storage == other.impl()->storage;
}

}  // namespace kiln
