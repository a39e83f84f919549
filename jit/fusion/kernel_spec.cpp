#include "jit/fusion/kernel_spec.h"

#include <cstring>
#include <sstream>
#include <type_traits>

#include <xxhash.h>

namespace kiln::jit {
namespace {

// Bumped when the meaning of a field changes, so that old keys (and the
// objects cached under them) stop matching.
constexpr std::uint32_t kEncodingVersion = 3;  // 2: dynamic_dims, 3: row_dims and reductions

// The canonical byte encoding hashed by key(): only meaningful slots (sizes
// of the static dims and strides of all among the first `ndim`, the first
// `arity` arguments), fixed widths.
class Encoder {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* bytes = reinterpret_cast<const char*>(&value);
    bytes_.append(bytes, sizeof(T));
  }
  void put(ScalarType t) { put(static_cast<std::uint8_t>(t)); }
  void put_strides(const std::int64_t* strides, int ndim) {
    for (int d = 0; d < ndim; ++d) put(strides[d]);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

const char* arg_prefix(ArgRef::Kind kind) {
  switch (kind) {
    case ArgRef::Instr: return "%";
    case ArgRef::Input: return "in";
    case ArgRef::Scalar: return "s";
  }
  return "?";
}

void print_strides(std::ostream& out, const std::int64_t* strides, int ndim, std::uint32_t dynamic = 0) {
  out << "[";
  for (int d = 0; d < ndim; ++d) out << (d ? ", " : "") << ((dynamic >> d) & 1u ? "?" : "") << strides[d];
  out << "]";
}

}  // namespace

std::int64_t KernelSpec::numel() const {
  std::int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= sizes[d];
  return n;
}

bool KernelSpec::has_reduction() const {
  for (const KernelInstr& instr : instrs)
    if (is_reduction(instr.op)) return true;
  return false;
}

std::int64_t KernelSpec::range() const {
  if (!has_reduction()) return numel();
  std::int64_t n = 1;
  for (int d = 0; d < row_dims && d < ndim; ++d) n *= sizes[d];
  return n;
}

std::uint64_t KernelSpec::key() const {
  Encoder e;
  e.put(kEncodingVersion);
  e.put(ndim);
  e.put(dynamic_dims);
  e.put(row_dims);
  const int dims = ndim < 0 ? 0 : ndim > trace::kMaxDims ? trace::kMaxDims : ndim;
  for (int d = 0; d < dims; ++d)
    if (!is_dynamic(d)) e.put(sizes[d]);
  e.put(static_cast<std::uint32_t>(inputs.size()));
  for (const KernelOperand& in : inputs) {
    e.put(in.dtype);
    e.put_strides(in.strides, dims);
  }
  e.put(static_cast<std::uint32_t>(scalars.size()));
  for (ScalarType s : scalars) e.put(s);
  e.put(static_cast<std::uint32_t>(instrs.size()));
  for (const KernelInstr& instr : instrs) {
    e.put(static_cast<std::uint8_t>(instr.op));
    e.put(instr.dtype);
    e.put(instr.out_dtype);
    e.put(instr.arity);
    for (int k = 0; k < instr.arity && k < 3; ++k) {
      e.put(static_cast<std::uint8_t>(instr.args[k].kind));
      e.put(instr.args[k].index);
    }
    e.put(instr.attr);
  }
  e.put(static_cast<std::uint32_t>(outputs.size()));
  for (const KernelOutput& out : outputs) {
    e.put(out.instr);
    e.put(out.mem.dtype);
    e.put_strides(out.mem.strides, dims);
  }
  if (knobs.sets_codegen()) {  // only then: an untuned kernel keeps the key it always had
    e.put(knobs.vector_width);
    e.put(knobs.interleave);
    e.put(knobs.sum_block);
  }
  return XXH3_64bits(e.bytes().data(), e.bytes().size());
}

std::string KernelSpec::to_string() const {
  std::ostringstream out;
  const int dims = ndim < 0 ? 0 : ndim > trace::kMaxDims ? trace::kMaxDims : ndim;
  out << "kernel ";
  print_strides(out, sizes, dims, dynamic_dims);  // "?" before the (current) size of a dynamic dim
  if (row_dims > 0) out << " rows over dims [0, " << row_dims << "), reducing the rest";
  else if (has_reduction()) out << " partial: reducing every dim";
  out << "\n";
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    out << "  in" << k << ": " << inputs[k].dtype << " strides ";
    print_strides(out, inputs[k].strides, dims);
    out << "\n";
  }
  for (std::size_t k = 0; k < scalars.size(); ++k) out << "  s" << k << ": " << scalars[k] << "\n";
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    const KernelInstr& instr = instrs[i];
    const int op = static_cast<int>(instr.op);
    out << "  %" << i << " = " << (op < trace::kNumOps ? trace::name(instr.op) : "<bad op>") << "." << instr.dtype
        << "(";
    for (int k = 0; k < instr.arity && k < 3; ++k)
      out << (k ? ", " : "") << arg_prefix(instr.args[k].kind) << instr.args[k].index;
    out << ") -> " << instr.out_dtype;
    if (instr.attr != 0) out << " attr " << instr.attr;
    out << "\n";
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    out << "  out" << k << " = %" << outputs[k].instr << " as " << outputs[k].mem.dtype << " strides ";
    print_strides(out, outputs[k].mem.strides, dims);
    out << "\n";
  }
  if (!(knobs == KernelKnobs{}))
    out << "  knobs: vector_width " << knobs.vector_width << ", interleave " << knobs.interleave << ", sum_block "
        << knobs.sum_block << ", grain " << knobs.grain << ", partial_chunk " << knobs.partial_chunk << "\n";
  return out.str();
}

bool is_fusible(trace::OpId op) {
  if (!is_op(op)) return false;
  const trace::OpKind kind = trace::info(op).kind;
  return kind == trace::OpKind::Unary || kind == trace::OpKind::Binary || kind == trace::OpKind::Ternary;
}

bool is_fusible(trace::OpId op, ScalarType dtype) {
  const bool divides = op == trace::OpId::Fmod || op == trace::OpId::Remainder || op == trace::OpId::FloorDivide;
  if (divides && !is_floating_point(dtype)) return false;
  return is_fusible(op);
}

ScalarType accumulator_dtype(const KernelInstr& reduction) {
  if (reduction.op == trace::OpId::Sum || reduction.op == trace::OpId::Prod)
    return is_floating_point(reduction.out_dtype) ? ScalarType::Float64 : ScalarType::Int64;
  return reduction.dtype;
}

}  // namespace kiln::jit
