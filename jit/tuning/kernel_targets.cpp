#include "jit/tuning/kernel_targets.h"

#include <kiln/error.h>

#include "jit/tuning/kernel_tuning.h"

namespace kiln::jit::tuning {
namespace {

using trace::OpId;

// A float32 kernel over contiguous `sizes` reading one input (in0).
KernelSpec over(std::initializer_list<std::int64_t> sizes) {
  KernelSpec spec;
  spec.ndim = static_cast<std::int32_t>(sizes.size());
  spec.inputs.resize(1);
  std::int64_t stride = 1;
  for (int d = spec.ndim - 1; d >= 0; --d) {
    spec.sizes[d] = std::data(sizes)[d];
    spec.inputs[0].strides[d] = stride;
    stride *= spec.sizes[d];
  }
  return spec;
}

ArgRef add(KernelSpec& spec, OpId op, std::initializer_list<ArgRef> args) {
  KernelInstr instr;
  instr.op = op;
  instr.arity = static_cast<std::uint8_t>(args.size());
  std::copy(args.begin(), args.end(), instr.args);
  spec.instrs.push_back(instr);
  return {ArgRef::Instr, static_cast<std::int32_t>(spec.instrs.size() - 1)};
}

constexpr ArgRef kIn0{ArgRef::Input, 0};

}  // namespace

const FusedKernelName* fused_kernel_name(std::string_view name) {
  for (const FusedKernelName& k : kFusedKernelNames)
    if (name == k.name) return &k;
  return nullptr;
}

KernelSpec fused_kernel_spec(std::string_view name, std::span<const std::int64_t> shape) {
  const FusedKernelName* known = fused_kernel_name(name);
  if (!known || static_cast<int>(shape.size()) != known->extents)
    throw InternalError(detail::cat("[tune] no fused kernel '", name, "' of ", shape.size(), " extents"));
  if (name == "sum") {
    KernelSpec spec = over({shape[0]});
    spec.outputs.push_back({add(spec, OpId::Sum, {kIn0}).index, {}});  // strides 0: the partial form
    return spec;
  }
  if (name == "exp") {
    KernelSpec spec = over({shape[0]});
    spec.outputs.push_back({add(spec, OpId::Exp, {kIn0}).index, spec.inputs[0]});
    return spec;
  }
  // softmax over the last dim: exp(x - amax(x)) * reciprocal(sum(exp(x - amax(x)))), one row kernel.
  KernelSpec spec = over({shape[0], shape[1]});
  spec.row_dims = 1;
  const ArgRef max = add(spec, OpId::Amax, {kIn0});
  const ArgRef e = add(spec, OpId::Exp, {add(spec, OpId::Sub, {kIn0, max})});
  const ArgRef sum = add(spec, OpId::Sum, {e});
  spec.outputs.push_back({add(spec, OpId::Mul, {e, add(spec, OpId::Reciprocal, {sum})}).index, spec.inputs[0]});
  return spec;
}

std::optional<FusedKernelTarget> fused_target_of(const KernelSpec& spec) {
  const std::string key = kernel_key(spec);
  if (key.empty() || spec.numel() == 0) return std::nullopt;
  const std::int64_t rows = spec.range();
  const bool row_kernel = key.starts_with("row_reduce/");
  FusedKernelTarget target{row_kernel ? "softmax" : key.starts_with("sum/") ? "sum" : "exp",
                           row_kernel ? std::vector<std::int64_t>{rows, spec.numel() / rows}
                                      : std::vector<std::int64_t>{spec.numel()}};
  if (kernel_key(fused_kernel_spec(target.name, target.shape)) != key) return std::nullopt;  // float64, or other loops
  return target;
}

std::string fused_kernel_target(const KernelSpec& spec) {
  const std::optional<FusedKernelTarget> t = fused_target_of(spec);
  if (!t) return "";
  return t->shape.size() == 2 ? detail::cat(t->name, " ", t->shape[0], "x", t->shape[1])
                              : detail::cat(t->name, " ", t->shape[0]);
}

double bytes_moved(const KernelSpec& spec) {
  double bytes = 0;
  for (const KernelOperand& in : spec.inputs) bytes += double(element_size(in.dtype)) * double(spec.numel());
  for (const KernelOutput& out : spec.outputs)  // a reduction's output is one value per row: left out
    if (!is_reduction(spec.instrs[out.instr].op)) bytes += double(element_size(out.mem.dtype)) * double(spec.numel());
  return bytes;
}

}  // namespace kiln::jit::tuning
