#include "jit/codegen/emit_reduce.h"

#include <cstddef>
#include <limits>

#include <llvm/IR/Intrinsics.h>

#include <kiln/error.h>

#include "jit/codegen/convert.h"

namespace kiln::jit::codegen {
namespace {

using trace::OpId;

bool is_max(const KernelInstr& r) { return r.op == OpId::Amax || r.op == OpId::Argmax; }
bool is_arg(const KernelInstr& r) { return r.op == OpId::Argmax || r.op == OpId::Argmin; }

// The identity of sum, prod, amax, amin in the accumulator's type.
llvm::Value* identity(IrContext& ir, const KernelInstr& r) {
  const ScalarType t = accumulator_dtype(r);
  if (r.op == OpId::Sum) return ir.constant(t, 0);
  if (r.op == OpId::Prod) return ir.constant(t, 1);
  const bool max = is_max(r);
  llvm::Type* type = ir.value_type(t);
  switch (t) {
    case ScalarType::Bool: return ir.b.getInt1(!max);
    case ScalarType::Int32:
    case ScalarType::Int64: {
      const unsigned bits = type->getIntegerBitWidth();
      return ir.b.getInt(max ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getSignedMaxValue(bits));
    }
    default: return ir.constant(t, max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  }
}

llvm::Value* reassociable(llvm::Value* v) {
  if (auto* i = llvm::dyn_cast<llvm::Instruction>(v)) i->setHasAllowReassoc(true);
  return v;
}

// acc (+ or *) v, or the extreme of the two. A floating extreme is
// maxnum/minnum marked no-NaNs: one vmaxps/vminps a vector, where
// llvm.maximum's NaN and signed-zero handling took six instructions (a
// softmax spent a quarter of its time there). A NaN makes the running
// value poison; the accumulator's `nan` flag records that one was seen,
// and `accumulated` answers NaN then, so the poison is never read.
llvm::Value* fold(IrContext& ir, const KernelInstr& r, llvm::Value* acc, llvm::Value* v) {
  const ScalarType t = accumulator_dtype(r);
  const bool fp = is_floating_point(t);
  switch (r.op) {
    case OpId::Sum: return fp ? reassociable(ir.b.CreateFAdd(acc, v)) : ir.b.CreateAdd(acc, v);
    case OpId::Prod: return fp ? reassociable(ir.b.CreateFMul(acc, v)) : ir.b.CreateMul(acc, v);
    default: break;
  }
  const bool max = is_max(r);
  if (t == kBool) return max ? ir.b.CreateOr(acc, v) : ir.b.CreateAnd(acc, v);
  if (!fp) return ir.b.CreateBinaryIntrinsic(max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin, acc, v);
  auto* call = llvm::cast<llvm::Instruction>(
      ir.b.CreateBinaryIntrinsic(max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, acc, v));
  call->setHasNoNaNs(true);
  call->setHasNoSignedZeros(true);
  return call;
}

// The accumulator's value as tier 0 has it: NaN once a NaN was folded in.
llvm::Value* accumulated(IrContext& ir, const KernelInstr& r, const Accumulator& acc) {
  const ScalarType t = accumulator_dtype(r);
  llvm::Value* value = ir.b.CreateLoad(ir.value_type(t), acc.value);
  if (!acc.nan) return value;
  llvm::Value* seen = ir.b.CreateLoad(ir.b.getInt1Ty(), acc.nan);
  return ir.b.CreateSelect(seen, ir.constant(t, std::numeric_limits<double>::quiet_NaN()), value);
}

// Tier 0's more_extreme(candidate, current): a NaN candidate wins unless
// the current value is NaN already; otherwise the strict comparison.
llvm::Value* more_extreme(IrContext& ir, const KernelInstr& r, llvm::Value* candidate, llvm::Value* current) {
  const bool max = is_max(r);
  if (is_floating_point(r.dtype)) {
    llvm::Value* nan_wins = ir.b.CreateAnd(ir.b.CreateFCmpUNO(candidate, candidate), ir.b.CreateFCmpORD(current, current));
    llvm::Value* strict = max ? ir.b.CreateFCmpOGT(candidate, current) : ir.b.CreateFCmpOLT(candidate, current);
    return ir.b.CreateOr(nan_wins, strict);
  }
  if (r.dtype == kBool) return max ? ir.b.CreateICmpUGT(candidate, current) : ir.b.CreateICmpULT(candidate, current);
  return max ? ir.b.CreateICmpSGT(candidate, current) : ir.b.CreateICmpSLT(candidate, current);
}

}  // namespace

Accumulator make_accumulator(IrContext& ir, const KernelInstr& r) {
  Accumulator acc;
  acc.value = ir.b.CreateAlloca(ir.value_type(accumulator_dtype(r)), nullptr, "acc");
  if (is_arg(r)) acc.position = ir.b.CreateAlloca(ir.b.getInt64Ty(), nullptr, "acc.pos");
  // Only for float32 results: a float32 sum asked for in float64 keeps the double accumulation.
  if (r.op == OpId::Sum && r.dtype == kFloat32 && r.out_dtype == kFloat32 && accumulator_dtype(r) == kFloat64)
    acc.block = ir.b.CreateAlloca(ir.b.getFloatTy(), nullptr, "acc.block");
  if ((r.op == OpId::Amax || r.op == OpId::Amin) && is_floating_point(accumulator_dtype(r)))
    acc.nan = ir.b.CreateAlloca(ir.b.getInt1Ty(), nullptr, "acc.nan");
  return acc;
}

void begin_block(IrContext& ir, const KernelInstr&, const Accumulator& acc) {
  if (acc.block) ir.b.CreateStore(ir.constant(kFloat32, 0), acc.block);
}

void end_block(IrContext& ir, const KernelInstr& r, const Accumulator& acc) {
  if (!acc.block) return;
  llvm::Value* block = ir.b.CreateLoad(ir.b.getFloatTy(), acc.block);
  llvm::Value* current = ir.b.CreateLoad(ir.value_type(kFloat64), acc.value);
  ir.b.CreateStore(fold(ir, r, current, convert(ir, block, kFloat32, kFloat64)), acc.value);
}

void reset(IrContext& ir, const KernelInstr& r, const Accumulator& acc) {
  if (is_arg(r)) {
    ir.b.CreateStore(llvm::Constant::getNullValue(ir.value_type(r.dtype)), acc.value);
    ir.b.CreateStore(ir.b.getInt64(-1), acc.position);
    return;
  }
  ir.b.CreateStore(identity(ir, r), acc.value);
  if (acc.nan) ir.b.CreateStore(ir.b.getInt1(false), acc.nan);
}

void accumulate(IrContext& ir, const KernelInstr& r, const Accumulator& acc, llvm::Value* value, llvm::Value* position) {
  const ScalarType t = accumulator_dtype(r);
  if (acc.block) {
    llvm::Value* block = ir.b.CreateLoad(ir.b.getFloatTy(), acc.block);
    ir.b.CreateStore(reassociable(ir.b.CreateFAdd(block, value)), acc.block);
    return;
  }
  llvm::Value* current = ir.b.CreateLoad(ir.value_type(t), acc.value);
  if (!is_arg(r)) {
    llvm::Value* v = convert(ir, value, r.dtype, t);
    if (acc.nan) {
      llvm::Value* seen = ir.b.CreateLoad(ir.b.getInt1Ty(), acc.nan);
      ir.b.CreateStore(ir.b.CreateOr(seen, ir.b.CreateFCmpUNO(v, v)), acc.nan);
    }
    ir.b.CreateStore(fold(ir, r, current, v), acc.value);
    return;
  }
  llvm::Value* at = ir.b.CreateLoad(ir.b.getInt64Ty(), acc.position);
  llvm::Value* take = ir.b.CreateOr(ir.b.CreateICmpSLT(at, ir.b.getInt64(0)), more_extreme(ir, r, value, current));
  ir.b.CreateStore(ir.b.CreateSelect(take, value, current), acc.value);
  ir.b.CreateStore(ir.b.CreateSelect(take, position, at), acc.position);
}

llvm::Value* result(IrContext& ir, const KernelInstr& r, const Accumulator& acc) {
  if (is_arg(r)) {
    llvm::Value* at = ir.b.CreateLoad(ir.b.getInt64Ty(), acc.position);
    return ir.b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, at, ir.b.getInt64(0));  // none (empty): 0
  }
  return convert(ir, accumulated(ir, r, acc), accumulator_dtype(r), r.out_dtype);
}

void store_partial(IrContext& ir, const KernelInstr& r, const Accumulator& acc, llvm::Value* slot) {
  const ScalarType t = accumulator_dtype(r);
  llvm::Value* value = accumulated(ir, r, acc);
  if (t == kBool) value = ir.b.CreateZExt(value, ir.b.getInt8Ty());
  ir.b.CreateAlignedStore(value, slot, llvm::Align(8));
  if (!is_arg(r)) return;
  llvm::Value* position = ir.b.CreateConstInBoundsGEP1_64(ir.b.getInt8Ty(), slot, offsetof(PartialSlot, position));
  ir.b.CreateAlignedStore(ir.b.CreateLoad(ir.b.getInt64Ty(), acc.position), position, llvm::Align(8));
}

}  // namespace kiln::jit::codegen
