// KernelSpec: an immutable description of one fused kernel, the unit the
// JIT compiles and caches. Built by the partitioner from a segment, handed
// to the compile queue as a snapshot (never the live trace).
//
// Three forms share it (see KernelSpec::row_dims):
//   elementwise  no reduction; [begin, end) ranges over all elements;
//   row          reductions over dims that include the last; the kept dims
//                come first (row_dims of them), the reduced ones after;
//                [begin, end) ranges over rows, each row runs in phases
//                (jit/fusion/kernel_phases.h);
//   partial      reductions over every dim (row_dims = 0); [begin, end)
//                ranges over elements and each reduction's output receives
//                the accumulator of that range (a partial result), which
//                the runtime combines in order (jit/tier1/partials.h).
//
// The kernel walks an iteration space (the output shape, with adjacent dims
// coalesced where every operand allows it). Each memory operand has one
// stride per iteration dim, in elements (0 = broadcast). Instructions are in
// SSA order; an argument names an earlier instruction, a loaded input or a
// run-time scalar. An argument whose dtype differs from the one the op reads
// (instr.dtype; bool for Where's condition) is converted as a tensor cast
// would (jit/codegen/convert.h), and so is a stored value whose dtype
// differs from its output's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/dtype.h>

#include "jit/fusion/kernel_knobs.h"
#include "trace/geometry.h"
#include "trace/op.h"

namespace kiln::jit {

/// A memory operand as the kernel sees it.
struct KernelOperand {
  ScalarType dtype = ScalarType::Float32;
  std::int64_t strides[trace::kMaxDims] = {};  // one per iteration dim
};

/// An argument of an instruction.
struct ArgRef {
  enum Kind : std::uint8_t { Instr, Input, Scalar } kind = Instr;
  std::int32_t index = 0;  // into instrs, inputs or scalars
};

struct KernelInstr {
  trace::OpId op{};
  ScalarType dtype = ScalarType::Float32;      // the type the op computes in (= its operands' type)
  ScalarType out_dtype = ScalarType::Float32;  // its result type (Bool for comparisons; the target for Copy)
  std::uint8_t arity = 0;
  ArgRef args[3];
  std::int64_t attr = 0;  // op attribute (Gelu: 1 = tanh approximation)
};
// A reduction instruction (Sum ... Argmin) folds its one argument over the
// reduced dims of its row: dtype = the type of the folded elements,
// out_dtype = the reduced value's type (Sum/Prod: the node's dtype,
// Amax/Amin: dtype, Argmax/Argmin: Int64), as tier 0 (jit/kernels/reduction.cpp)
// computes it: floating sums and products accumulate in double, integral
// ones in wrapping int64; arg reductions keep the first extreme position.

struct KernelOutput {
  std::int32_t instr = 0;  // the instruction whose value is stored
  KernelOperand mem;       // where (dtype = the stored type)
};

struct KernelSpec {
  std::int32_t ndim = 0;
  std::int64_t sizes[trace::kMaxDims] = {};
  // Bit d set: the size of iteration dim d is read at run time (see
  // CompiledFn), so one compiled kernel serves every size of it. sizes[d]
  // then holds the size of the current use only: key() does not hash it and
  // codegen ignores it. Strides stay compile-time constants: a dim may be
  // dynamic only if no operand's strides depend on its size.
  std::uint32_t dynamic_dims = 0;
  // With reductions: the leading dims that index rows; the others (at least
  // one) are reduced. An operand or instruction whose values do not vary
  // along the reduced dims (strides 0 there) is row-level: computed once
  // per row. 0 with reductions: the partial form (every dim reduced).
  std::int32_t row_dims = 0;
  std::vector<KernelOperand> inputs;
  // Run-time scalars: their kind (Float32/Float64 passed as double bits,
  // Bool/Int32/Int64 as int64), converted to the dtype of the instruction
  // using them as kiln::Scalar::to<T>() does.
  std::vector<ScalarType> scalars;
  std::vector<KernelInstr> instrs;
  std::vector<KernelOutput> outputs;
  // How it is compiled and launched (all 0: the heuristic); set from the
  // tuning database when the kernel's family and shape have an entry.
  KernelKnobs knobs;

  bool is_dynamic(int d) const { return (dynamic_dims >> d) & 1u; }
  bool has_reduction() const;
  /// The partial form: reductions over every dim.
  bool is_partial() const { return row_dims == 0 && has_reduction(); }
  /// Rows (product of the first row_dims sizes), or elements (other forms):
  /// what [begin, end) of CompiledFn ranges over.
  std::int64_t range() const;
  /// The product of `sizes`: for a dynamic spec, of the sizes it holds (a
  /// caller keeps its current sizes in its copy of the spec).
  std::int64_t numel() const;
  /// xxh3 of everything above (but the sizes of dynamic dims and the launch
  /// knobs): equal keys compile to the same code.
  std::uint64_t key() const;
  /// A readable listing, for dumps and error messages.
  std::string to_string() const;
};

/// The ABI of a compiled kernel. It processes the linear iteration indices
/// [begin, end) (row-major over `sizes`; for a row kernel, the rows:
/// row-major over the first row_dims sizes); `ptrs` holds the base pointer of
/// every input, then of every output; `scalars` the run-time scalars as
/// 64-bit patterns (a double for Float32/Float64, an int64 otherwise),
/// followed by the size of every dynamic dim as an int64, in increasing dim
/// order (scalars[spec.scalars.size() + j]: the j-th dynamic dim).
/// Outputs must not overlap inputs or each other, except an output that is
/// exactly an input (same memory, dtype and strides: in place): element i of
/// every input is read before element i of any output is written, and no
/// iteration touches another's elements (the kernel's inner loop is declared
/// parallel to the vectorizer on that basis). A partial kernel stores, for
/// each output of a reduction, its accumulator into the 16-byte slot the
/// output's pointer names (partial_slot below), whatever the output's strides.
using CompiledFn = void (*)(std::int64_t begin, std::int64_t end, void* const* ptrs, const std::int64_t* scalars);

/// The elementwise ops a fused kernel can contain; besides them, it may
/// contain reductions.
bool is_fusible(trace::OpId op);
/// Whether an op computing in `dtype` may join a kernel: integer fmod and
/// remainder (and floor_divide) stay on tier 0, whose kernel throws on a zero divisor.
bool is_fusible(trace::OpId op, ScalarType dtype);

/// False for an id outside the op table: a spec may be malformed
/// (validate() rejects it, printing it with to_string()).
inline bool is_op(trace::OpId op) { return static_cast<std::size_t>(op) < trace::kNumOps; }
/// Inline: asked for every instruction of a spec on each launch.
inline bool is_reduction(trace::OpId op) {
  return is_op(op) && trace::info(op).kind == trace::OpKind::Reduction;
}

/// The dtype a reduction accumulates in (for arg reductions: the extreme
/// value's; the position is an int64 beside it).
ScalarType accumulator_dtype(const KernelInstr& reduction);

/// Elements per chunk of a partial kernel's launch (unless its knobs say
/// otherwise). Fixed, so that the order in which partial results are
/// combined never depends on the thread count.
inline constexpr std::int64_t kPartialChunk = 64 * 1024;

/// The accumulator of a partial kernel's reduction output: the value (in
/// accumulator_dtype) at byte 0, an arg reduction's position (int64, -1:
/// none yet) at byte 8.
struct alignas(8) PartialSlot {
  unsigned char value[8];
  std::int64_t position;
};

}  // namespace kiln::jit
