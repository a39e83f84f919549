// The phases of a kernel with reductions: which instructions run once per
// row and which per element, and in which loop over the row each element
// instruction, reduction and output is computed. Shared by validation and
// codegen; plain C++.
//
// A row runs loops L0 .. L(loops-1) over its elements. A reduction whose
// argument needs the results of d earlier loops accumulates in L(d); its
// result exists after that loop (its depth is d + 1). An element
// instruction is recomputed in every loop that needs it (recomputing is
// cheaper than a round trip through memory); a row-level instruction (one
// that reads no element-varying input) is computed once, before the first
// loop that needs it. So softmax, amax -> sub -> exp -> sum -> div, runs
// L0: amax; L1: sum of exp(x - max); L2: store exp(x - max) / sum.
// An elementwise kernel is one loop without row-level values.
//
// Except for costly instructions (those that call a math function: exp,
// log, tanh, ...): one of them needed by a later loop is computed once, in
// the first loop that needs it, and kept in a row buffer that later loops
// read. Softmax then computes exp(x - max) once per element: L1 sums it and
// writes it to the buffer, L2 reads it back and divides. The buffer is the
// row of an output that a later loop overwrites (softmax's own result), or
// else on the stack, at most kRowCacheBytes per kernel so it stays in
// L1/L2; a value whose buffer would pass that is recomputed instead.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/fusion/kernel_spec.h"

namespace kiln::jit {

/// Whether `instr` evaluates a transcendental function (exp, log, tanh,
/// sigmoid, gelu, floating pow, ...): costly enough to keep in a row buffer.
bool calls_math_function(const KernelInstr& instr);

/// The most bytes of row buffers one row kernel keeps on its stack.
inline constexpr std::int64_t kRowCacheBytes = 32 * 1024;

struct KernelPhases {
  std::vector<bool> row_level;  // per instruction: one value per row
  std::vector<int> depth;       // per instruction: loops completed before its value exists
  int loops = 0;
  /// Per loop, per instruction: evaluated for each element in that loop.
  std::vector<std::vector<bool>> in_loop;
  /// Per output: the loop that stores it, or -1 = once per row, after the loops.
  std::vector<int> store_loop;
  /// Per instruction: the loop that computes it and writes it to its row
  /// buffer, or -1 = not kept (recomputed where needed).
  std::vector<int> cache_loop;
  /// Per instruction with a row buffer: the output whose row serves as
  /// that buffer (stored in a loop no earlier than the buffer's last read,
  /// of the value's dtype), or -1 = a buffer on the stack.
  std::vector<int> cache_output;
  /// Per loop, per instruction: in_loop, but read from its row buffer.
  std::vector<std::vector<bool>> reload;
  /// The elements of one row (row kernels; 0 otherwise): a row buffer's size.
  std::int64_t row_elements = 0;
};

/// Whether input k of `spec` is row-level: strides 0 on every reduced dim
/// (row kernels only; in the other forms no input is).
bool row_level_input(const KernelSpec& spec, std::size_t k);
/// Whether output k is stored once per row (row kernels: strides 0 on every
/// reduced dim; other forms: the output of a reduction).
bool row_level_output(const KernelSpec& spec, std::size_t k);

/// The phases of `spec`, which must be structurally valid (codegen::validate).
KernelPhases plan_phases(const KernelSpec& spec);

}  // namespace kiln::jit
