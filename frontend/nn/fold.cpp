#include <kiln/nn/fold.h>

#include <ostream>

#include <kiln/error.h>

#include "frontend/window.h"

namespace kiln::nn::functional {
namespace {

trace::Window2d window_of(const ExpandingArray<2>& kernel, const ExpandingArray<2>& dilation,
                          const ExpandingArray<2>& padding, const ExpandingArray<2>& stride) {
  trace::Window2d w;
  for (std::size_t d = 0; d < 2; ++d) {
    w.kernel[d] = kernel[d];
    w.dilation[d] = dilation[d];
    w.padding[d] = padding[d];
    w.stride[d] = stride[d];
  }
  return w;
}

void require_defined(const Tensor& input, const char* op) {
  if (!input.defined()) throw ValueError(kiln::detail::cat("[", op, "] undefined input"));
}

}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  require_defined(input, "unfold");
  if (input.dim() == 3) return unfold(input.unsqueeze(0), o).squeeze(0);
  return frontend::im2col(input, window_of(o.kernel_size(), o.dilation(), o.padding(), o.stride()), "unfold");
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  require_defined(input, "fold");
  if (input.dim() == 2) return fold(input.unsqueeze(0), o).squeeze(0);
  const std::int64_t size[2] = {o.output_size()[0], o.output_size()[1]};
  return frontend::col2im(input, size, window_of(o.kernel_size(), o.dilation(), o.padding(), o.stride()), "fold");
}

}  // namespace kiln::nn::functional

namespace kiln::nn {

UnfoldImpl::UnfoldImpl(const UnfoldOptions& options_) : Module("kiln::nn::Unfold"), options(options_) {}
Tensor UnfoldImpl::forward(const Tensor& input) { return functional::unfold(input, options); }
void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

FoldImpl::FoldImpl(const FoldOptions& options_) : Module("kiln::nn::Fold"), options(options_) {}
Tensor FoldImpl::forward(const Tensor& input) { return functional::fold(input, options); }
void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(output_size=" << options.output_size() << ", kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding() << ", stride=" << options.stride()
         << ")";
}

}  // namespace kiln::nn
