// sort, argsort and topk: the argsort primitive (a stable sort, NaN greatest)
// gives the positions and the values are gathered there, so the gradient
// adds the output's gradient back at the positions read.
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/function_node.h"
#include "frontend/handle.h"

namespace kiln {
namespace {

using autograd::variable_list;

Tensor positions(const Tensor& x, std::int64_t dim, bool descending, const char* op) {
  return frontend::wrap(trace::argsort(frontend::unwrap(x, op), dim, descending, op));
}

// x's elements at `indices` along `dim`, with the backward `node_name` when x
// requires grad.
Tensor gathered(const Tensor& x, std::int64_t dim, const Tensor& indices, const char* node_name) {
  const bool track = autograd::any_requires_grad({x});
  Tensor values;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    values = x.gather(dim, indices);
  }
  if (track)
    autograd::record_function(
        node_name, {x}, values,
        [shape = x.sizes().vec(), dim](const Tensor& g, const variable_list& saved) {
          return variable_list{zeros(shape, g.dtype()).scatter_add(dim, saved[0], g)};
        },
        {indices});
  return values;
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::sort(std::int64_t dim, bool descending) const {
  Tensor indices = positions(*this, dim, descending, "sort");
  return {gathered(*this, dim, indices, "SortBackward0"), indices};
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool>, std::int64_t dim, bool descending) const {
  return sort(dim, descending);
}
Tensor Tensor::argsort(std::int64_t dim, bool descending) const { return positions(*this, dim, descending, "argsort"); }

std::tuple<Tensor, Tensor> Tensor::topk(std::int64_t k, std::int64_t dim, bool largest, bool) const {
  const auto& impl = frontend::unwrap(*this, "topk");
  const int d = trace::wrap_dim(dim, impl.geo, "topk");
  const std::int64_t size = impl.geo.ndim == 0 ? 1 : impl.geo.sizes[d];
  if (k < 0 || k > size)
    throw IndexError(detail::cat("[topk] selected index k out of range: k = ", k, " for dim ", d, " of size ", size,
                                 " (input shape ", impl.geo.shape(), ")"));
  if (impl.geo.ndim == 0 && k == 0) return reshape({1}).topk(0, 0, largest);
  Tensor order = positions(*this, d, largest, "topk");
  Tensor indices = impl.geo.ndim == 0 ? order : order.narrow(d, 0, k);
  return {gathered(*this, d, indices, "TopkBackward0"), indices};
}

std::tuple<Tensor, Tensor> sort(const Tensor& x, std::int64_t dim, bool descending) { return x.sort(dim, descending); }
std::tuple<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, std::int64_t dim, bool descending) {
  return x.sort(stable, dim, descending);
}
Tensor argsort(const Tensor& x, std::int64_t dim, bool descending) { return x.argsort(dim, descending); }
std::tuple<Tensor, Tensor> topk(const Tensor& x, std::int64_t k, std::int64_t dim, bool largest, bool sorted) {
  return x.topk(k, dim, largest, sorted);
}

}  // namespace kiln
