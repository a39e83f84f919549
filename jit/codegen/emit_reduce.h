// The accumulators of reductions in generated code, with tier 0's semantics
// (jit/kernels/reduction.cpp): floating sums and products in double,
// integral ones in wrapping int64, NaN the extreme of amax/amin (and the
// first NaN's position for argmax/argmin), the first position of the
// extreme for argmax/argmin. Private to jit/codegen (LLVM inside).
//
// Accumulators live in stack slots (mem2reg turns them into loop phis).
// Floating sums and products are marked reassociable, so the vectorizer
// keeps several vector accumulators and adds them at the end: the order
// of additions differs from tier 0's, not the accumulation type. Floating
// amax and amin fold with maxnum/minnum and a flag for a NaN seen; of two
// equal zeros either may be kept, where tier 0 keeps the first.
//
// A float32 sum with a float32 result accumulates in blocks (of the inner loop's elements:
// KernelKnobs::sum_block, else heuristic_sum_block, kernel_knobs.h): each block in float, in vector lanes the
// vectorizer combines by a tree at the block's end, and the block's sum is added to the double
// accumulator. A block's lanes fold at most a block / 32 elements each,
// so its error stays within that many float ulps of the block's sum of
// magnitudes, while the inner loop is a plain float add (no conversion to
// double, half the vector registers). A tuned larger block folds more
// elements per lane in float (its error grows with them) for fewer
// conversions; the tuner keeps it only within 1e-5 of the heuristic's sum.
#pragma once

#include <cstdint>


#include <llvm/IR/Value.h>

#include "jit/codegen/ir_context.h"
#include "jit/fusion/kernel_spec.h"

namespace kiln::jit::codegen {

struct Accumulator {
  llvm::Value* value = nullptr;     // slot of accumulator_dtype
  llvm::Value* position = nullptr;  // slot of int64 (arg reductions only)
  llvm::Value* block = nullptr;     // slot of float (blocked float32 sums only)
  llvm::Value* nan = nullptr;       // slot of i1: a NaN was folded in (floating amax/amin only)
};

/// Stack slots for `reduction`, created at the builder's position (the entry block).
Accumulator make_accumulator(IrContext& ir, const KernelInstr& reduction);
/// Stores the identity (or "no position yet").
void reset(IrContext& ir, const KernelInstr& reduction, const Accumulator& acc);
/// Folds `value` (of reduction.dtype) found at `position` into `acc`.
void accumulate(IrContext& ir, const KernelInstr& reduction, const Accumulator& acc, llvm::Value* value,
                llvm::Value* position);
/// Blocked sums: starts a block (its float sum at 0), and adds the block's
/// sum to the accumulator. No-ops for the other accumulators.
void begin_block(IrContext& ir, const KernelInstr& reduction, const Accumulator& acc);
void end_block(IrContext& ir, const KernelInstr& reduction, const Accumulator& acc);
/// The reduced value, of reduction.out_dtype.
llvm::Value* result(IrContext& ir, const KernelInstr& reduction, const Accumulator& acc);
/// Writes the accumulator to the PartialSlot at `slot`.
void store_partial(IrContext& ir, const KernelInstr& reduction, const Accumulator& acc, llvm::Value* slot);

}  // namespace kiln::jit::codegen
