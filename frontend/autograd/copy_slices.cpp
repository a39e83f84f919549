#include "frontend/autograd/copy_slices.h"

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/autograd/function_node.h"
#include "trace/views.h"

namespace kiln::autograd {

namespace {

// The view's geometry as offsets into its base's own elements.
trace::Geometry relative_geometry(const trace::TensorImpl& view, const trace::TensorImpl& base) {
  if (!base.geo.is_contiguous())
    throw AutogradError(kiln::detail::cat("[inplace] writing through a view of a non-contiguous tensor ",
                                    describe(base), " that requires grad is not supported; clone() the base first"));
  trace::Geometry g = view.geo;
  g.offset -= base.geo.offset;
  return g;
}

// The gradient of the base after the write: the base's gradient outside the
// view's region, the op's gradient for the view's old value inside it.
class CopySlices final : public Node {
 public:
  CopySlices(Edge base_edge, std::shared_ptr<Node> op_node, const trace::Geometry& region)
      : Node(edges(std::move(base_edge), *op_node)), op_node_(std::move(op_node)), region_(region) {}

  std::string name() const override { return "CopySlices"; }

  variable_list apply(variable_list&& grads) override {
    variable_list out(next_edges_.size());
    if (!grads[0].defined()) return out;
    Tensor result = grads[0].clone();
    Tensor region = strided_region(result, region_);
    variable_list op_grads = op_node_->apply({region.clone()});
    if (op_grads[0].defined()) region.copy_(op_grads[0]);
    else region.zero_();
    out[0] = result;
    for (std::size_t k = 1; k < op_grads.size(); ++k) out[k] = std::move(op_grads[k]);
    return out;
  }

  void release_variables() override { op_node_->release_variables(); }

 private:
  static edge_list edges(Edge base_edge, const Node& op_node) {
    edge_list e = op_node.next_edges();
    e[0] = std::move(base_edge);
    return e;
  }
  std::shared_ptr<Node> op_node_;
  trace::Geometry region_;
};

// The gradient of a view re-derived from its base: the base's gradient
// restricted to the view's region.
class AsStridedBackward final : public Node {
 public:
  AsStridedBackward(Edge base_edge, const trace::Geometry& region, const trace::Geometry& base_shape)
      : Node({std::move(base_edge)}), region_(region), base_shape_(base_shape) {}
  std::string name() const override { return "AsStridedBackward0"; }
  variable_list apply(variable_list&& grads) override {
    if (!grads[0].defined()) return {Tensor()};
    // Elements of an expanded dim (stride 0) share one base element: their
    // gradients add up there. kiln's views overlap in no other way.
    Tensor g = grads[0];
    trace::Geometry region = region_;
    for (int d = 0; d < region.ndim; ++d)
      if (region.strides[d] == 0 && region.sizes[d] != 1) {
        g = g.sum({d}, true);
        region.sizes[d] = 1;
      }
    Tensor result = zeros(base_shape_.shape(), g.dtype());
    strided_region(result, region).copy_(g);
    return {result};
  }

 private:
  trace::Geometry region_, base_shape_;
};

}  // namespace

Tensor embed_region(const Tensor& g, IntArrayRef shape, std::int64_t dim, std::int64_t start, std::int64_t step,
                    bool select) {
  const std::int64_t len = select ? 1 : g.size(dim);
  // An empty slice's region is empty too (a negative end would wrap around).
  const std::int64_t end = len == 0 ? start : start + (len - 1) * step + 1;
  auto region = [=](const Tensor& t) { return select ? t.select(dim, start) : t.slice(dim, start, end, step); };
  bool track = grad_mode() && g.requires_grad();
  Tensor out;
  {
    AutoGradMode mode(false);
    out = zeros(shape, g.dtype());
    region(out).copy_(g);
  }
  if (track)
    record_function("SliceBackwardBackward0", {g}, out,
                    [region](const Tensor& gg, const variable_list&) { return variable_list{region(gg)}; });
  return out;
}

Tensor strided_region(const Tensor& t, const trace::Geometry& geo) {
  trace::Geometry g = geo;
  g.offset += t.impl()->geo.offset;
  return Tensor(trace::alias(*t.impl(), g));
}

void rebase_view_history(const Tensor& view, std::shared_ptr<Node> op_node) {
  AutogradMeta& vm = *meta(*view.impl());
  trace::TensorImpl& base = *vm.view_base;
  trace::Geometry region = relative_geometry(*view.impl(), base);
  auto slices = std::make_shared<CopySlices>(gradient_edge(base), std::move(op_node), region);
  set_history(base, slices);
  vm.grad_fn = std::make_shared<AsStridedBackward>(Edge{slices, 0}, region, base.geo);
  vm.output_nr = 0;
  vm.view_version = base.storage->version();
}

void refresh_view_history(const trace::TensorImpl& view) {
  AutogradMeta& vm = *meta(view);
  const std::uint32_t now = view.storage->version();
  if (vm.view_version == now) return;
  vm.view_version = now;
  trace::TensorImpl& base = *vm.view_base;
  if (!requires_grad(base)) return;
  vm.grad_fn = std::make_shared<AsStridedBackward>(gradient_edge(base), relative_geometry(view, base), base.geo);
  vm.output_nr = 0;
}

}  // namespace kiln::autograd
