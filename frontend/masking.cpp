// masked_fill and one_hot: compositions of where and eq, so they fuse with
// their neighbours and masked_fill's gradient comes from where's.
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

namespace kiln {
namespace {

void check_mask(const Tensor& self, const Tensor& mask, const char* op) {
  if (!self.defined() || !mask.defined()) throw ValueError(detail::cat("[", op, "] called with an undefined tensor"));
  if (mask.dtype() != ScalarType::Bool)
    throw DtypeError(detail::cat("[", op, "] only supports boolean masks, but got mask with dtype ", mask.dtype(),
                                 " (mask ", mask.sizes(), ", tensor ", self.sizes(), ")"));
}

Tensor one_element(const Tensor& self, const Tensor& value, const char* op) {
  if (value.dim() != 0)
    throw ShapeError(detail::cat("[", op, "] only supports a 0-dimensional value tensor, but got tensor with ",
                                 value.dim(), " dimension(s) (shape ", value.sizes(), ")"));
  return value.to(self.dtype());
}

}  // namespace

Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  check_mask(*this, mask, "masked_fill");
  return where(mask, value, *this).to(dtype());
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  check_mask(*this, mask, "masked_fill");
  return where(mask, one_element(*this, value, "masked_fill"), *this);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  check_mask(*this, mask, "masked_fill_");
  return copy_(where(mask, value, *this));
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  check_mask(*this, mask, "masked_fill_");
  return copy_(where(mask, one_element(*this, value, "masked_fill_"), *this));
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value) { return x.masked_fill(mask, value); }
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) { return x.masked_fill(mask, value); }

Tensor one_hot(const Tensor& x, std::int64_t num_classes) {
  if (!x.defined()) throw ValueError("[one_hot] called on an undefined tensor");
  if (x.dtype() != ScalarType::Int64)
    throw DtypeError(detail::cat("[one_hot] is only applicable to index tensors of dtype Long, got ", x.dtype(),
                                 " ", x.sizes()));
  if (num_classes < -1) throw ValueError(detail::cat("[one_hot] num_classes must be -1 or positive, got ", num_classes));
  // The class range is checked against the values (a materialization
  // point, as in LibTorch).
  if (x.numel() == 0) {
    if (num_classes == -1)
      throw ValueError(detail::cat("[one_hot] can not infer the total number of classes from an empty tensor ",
                                   x.sizes()));
  } else {
    const std::int64_t lo = x.min().item<std::int64_t>(), hi = x.max().item<std::int64_t>();
    if (lo < 0) throw ValueError(detail::cat("[one_hot] class values must be non-negative, got ", lo));
    if (num_classes == -1) num_classes = hi + 1;
    if (hi >= num_classes)
      throw ValueError(detail::cat("[one_hot] class values must be smaller than num_classes (", num_classes,
                                   "), got ", hi));
  }
  return x.unsqueeze(-1).eq(arange(num_classes)).to(kInt64);
}

Tensor nn::functional::one_hot(const Tensor& x, std::int64_t num_classes) { return kiln::one_hot(x, num_classes); }

}  // namespace kiln
