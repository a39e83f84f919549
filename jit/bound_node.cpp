#include "jit/bound_node.h"

#include <cstring>
#include <optional>

#include <kiln/error.h>

#include "jit/kernels/copy.h"
#include "jit/kernels/dtype_dispatch.h"

namespace kiln::jit {
namespace {

using kernels::TensorArg;
using trace::OpKind;

// The dtype the kernel of `node` reads input k in; nullopt: any.
std::optional<ScalarType> kernel_input_dtype(const trace::Node& node, int k) {
  switch (trace::info(node.op).kind) {
    case OpKind::Creation:
    case OpKind::Reduction: return std::nullopt;
    case OpKind::Index: return k == 1 ? kInt64 : node.out.dtype;  // (source, index[, values])
    case OpKind::MatMul: return node.dtype;
    case OpKind::Scan:  // argsort reads any dtype, cumsum and cumprod their own
      if (trace::info(node.op).rule == trace::DtypeRule::Index) return std::nullopt;
      return node.dtype;
    default:
      if (node.op == trace::OpId::Copy) return std::nullopt;
      if (node.op == trace::OpId::Where && k == 0) return kBool;
      return node.dtype;
  }
}

// The dtype the kernel of `node` writes; nullopt: any (it converts itself).
std::optional<ScalarType> kernel_output_dtype(const trace::Node& node) {
  const trace::OpInfo& info = trace::info(node.op);
  switch (info.kind) {
    case OpKind::Creation:
    case OpKind::Reduction:
    case OpKind::Index:
    case OpKind::Scan: return std::nullopt;
    case OpKind::MatMul: return node.dtype;
    default:
      if (node.op == trace::OpId::Copy) return std::nullopt;
      if (info.rule == trace::DtypeRule::Compare || info.rule == trace::DtypeRule::Logical) return kBool;
      return node.dtype;
  }
}

// Byte range [begin, end) of the storage an operand can touch.
std::pair<std::int64_t, std::int64_t> byte_span(const trace::Operand& operand) {
  const std::int64_t size = static_cast<std::int64_t>(element_size(operand.dtype));
  return {operand.geo.offset * size, operand.geo.extent() * size};
}

// Would reading input k while the kernel writes the output give other
// results than reading it all first?
bool reads_overwritten_memory(const trace::Segment& segment, const trace::Node& node, int k) {
  const trace::Operand &in = node.in[k], &out = node.out;
  if (segment.values[in.value].storage != segment.values[out.value].storage) return false;
  const auto [in_begin, in_end] = byte_span(in);
  const auto [out_begin, out_end] = byte_span(out);
  if (in_end <= out_begin || out_end <= in_begin) return false;
  const bool element_for_element = trace::is_elementwise(node.op) && in.geo == out.geo && in.dtype == out.dtype;
  return !element_for_element;
}

}  // namespace

TensorArg resolve(trace::Segment& segment, const trace::Operand& operand) {
  trace::Storage& storage = *segment.values[operand.value].storage;
  const std::int64_t size = static_cast<std::int64_t>(element_size(operand.dtype));
  KILN_CHECK(static_cast<std::size_t>(operand.geo.extent() * size) <= storage.nbytes(), "view ",
             trace::shape_str(operand.geo.shape()), " at offset ", operand.geo.offset, " exceeds its storage of ",
             storage.nbytes(), " bytes");
  TensorArg arg{static_cast<char*>(storage.data()) + operand.geo.offset * size, operand.dtype, operand.geo};
  arg.geo.offset = 0;
  return arg;
}

kernels::ContentTag content_of(const trace::Segment& segment, const trace::Operand& operand) {
  trace::Storage& storage = *segment.values[operand.value].storage;
  if (!storage.content_known()) return {};
  for (const trace::Node& node : segment.nodes)
    if (node.out.value == operand.value) return {};
  storage.mark_serial_used();  // its death then clears what is kept under the tag
  return {storage.serial(), storage.writes(), operand.geo.offset};
}

bool may_take_memory_of(const trace::Operand& in, const trace::Storage& donor, const trace::Operand& out,
                        const trace::Storage& heir) {
  return in.dtype == out.dtype && in.geo == out.geo && donor.nbytes() == heir.nbytes() && trace::writes_whole(out, heir);
}

// The input of `node` whose memory its output takes (see the header), if
// one of those in `dying` can give it; -1 if none. Unpinned: the caller
// has pinned nothing yet, so the input's bytes can change hands.
int BoundNode::take_dying_input(trace::Segment& segment, const trace::Node& node, std::uint8_t dying) {
  const trace::OpKind kind = trace::info(node.op).kind;
  if (dying == 0 || (kind != OpKind::Unary && kind != OpKind::Binary && kind != OpKind::Ternary)) return -1;
  const trace::Operand& out = node.out;
  trace::Storage& heir = *segment.values[out.value].storage;
  if (kernel_output_dtype(node) != out.dtype) return -1;
  for (int k = 0; k < node.arity; ++k) {
    const trace::Operand& in = node.in[k];
    if (!(dying >> k & 1) || in.is_scalar() || kernel_input_dtype(node, k) != in.dtype) continue;
    trace::Storage& donor = *segment.values[in.value].storage;
    bool read_twice = false;  // through another operand, which would pin (recompute) what was given away
    for (int j = 0; j < node.arity; ++j)
      read_twice |= j != k && !node.in[j].is_scalar() && segment.values[node.in[j].value].storage.get() == &donor;
    if (!read_twice && may_take_memory_of(in, donor, out, heir) && donor.give_memory_to(heir)) return k;
  }
  return -1;
}

BoundNode::BoundNode(trace::Segment& segment, const trace::Node& node, bool pin, std::uint8_t dying)
    : reused_(take_dying_input(segment, node, dying)) {
  if (pin) {
    auto read = [&](int k) -> trace::Storage* {
      return node.in[k].is_scalar() || k == reused_ ? nullptr : segment.values[node.in[k].value].storage.get();
    };
    trace::Storage* inputs[trace::kMaxArity];
    std::size_t n = 0;
    for (int k = 0; k < node.arity; ++k)
      if (trace::Storage* input = read(k)) inputs[n++] = input;
    const std::vector<trace::Storage::Awaited> awaited = trace::make_inputs_resident({inputs, n});
    for (int k = 0; k < node.arity; ++k)
      if (trace::Storage* input = read(k)) pins_[k].emplace(*input);
    pins_[trace::kMaxArity].emplace(*segment.values[node.out.value].storage);
  }
  call_.node = &node;
  final_out_ = resolve(segment, node.out);
  call_.out = final_out_;
  if (const auto dtype = kernel_output_dtype(node); dtype && *dtype != node.out.dtype) {
    call_.out = stage({nullptr, *dtype, final_out_.geo}, *dtype);
    output_staged_ = true;
  }
  for (int k = 0; k < node.arity; ++k) {
    const trace::Operand& operand = node.in[k];
    const std::optional<ScalarType> dtype = kernel_input_dtype(node, k);
    if (k == reused_) {  // its bytes are the output's now, element for element
      call_.in[k] = final_out_;
      continue;
    }
    if (operand.is_scalar()) {
      if (trace::info(node.op).kind != OpKind::Creation) call_.in[k] = scalar_input(k, dtype.value_or(operand.dtype));
      continue;
    }
    call_.in[k] = resolve(segment, operand);
    if (k == 1 && node.op == trace::OpId::MatMul) call_.matmul_b = content_of(segment, operand);
    const bool convert = dtype && *dtype != operand.dtype;
    if (convert || (!output_staged_ && reads_overwritten_memory(segment, node, k)))
      call_.in[k] = stage(call_.in[k], dtype.value_or(operand.dtype));
  }
}

void BoundNode::finish() {
  if (output_staged_) kernels::copy_elements(final_out_, call_.out);
}

// A contiguous copy of `source` in `dtype`. Broadcast dims (stride 0) stay
// broadcast: only the distinct elements are copied. A source without data
// gives an uninitialized buffer (a staged output).
TensorArg BoundNode::stage(const TensorArg& source, ScalarType dtype) {
  TensorArg distinct = source;
  for (int d = 0; d < distinct.geo.ndim; ++d)
    if (distinct.geo.strides[d] == 0) distinct.geo.sizes[d] = 1;
  TensorArg copy{nullptr, dtype, trace::Geometry::contiguous(distinct.geo.shape(), "stage")};
  temporaries_.emplace_back(static_cast<std::size_t>(copy.numel()) * element_size(dtype));
  copy.data = temporaries_.back().as<char>();
  if (source.data != nullptr) kernels::copy_elements(copy, distinct);
  for (int d = 0; d < copy.geo.ndim; ++d) {
    copy.geo.sizes[d] = source.geo.sizes[d];
    if (source.geo.strides[d] == 0) copy.geo.strides[d] = 0;
  }
  return copy;
}

// Scalar k of an elementwise node as a stride-0 tensor of the output's shape.
TensorArg BoundNode::scalar_input(int k, ScalarType dtype) {
  const trace::Node& node = *call_.node;
  KILN_CHECK(trace::is_elementwise(node.op), "scalar operand ", k, " of ", trace::name(node.op));
  visit_dtype<kAllTypes>(dtype, trace::name(node.op), [&]<class T>() {
    const T value = node.in[k].scalar.to<T>();
    std::memcpy(scalars_[k], &value, sizeof(T));
  });
  TensorArg arg{reinterpret_cast<char*>(scalars_[k]), dtype, call_.out.geo};
  for (int d = 0; d < arg.geo.ndim; ++d) arg.geo.strides[d] = 0;
  return arg;
}

}  // namespace kiln::jit
