#include "jit/codegen/convert.h"

#include <llvm/IR/Intrinsics.h>

namespace kiln::jit::codegen {
namespace {

llvm::Value* nonzero(IrContext& ir, llvm::Value* v, ScalarType from) {
  if (from == kBool) return v;
  if (is_floating_point(from)) return ir.b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
  return ir.b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
}

llvm::Value* float_to_int(IrContext& ir, llvm::Value* v, llvm::Type* to) {
  return ir.b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {to, v->getType()}, {v});
}

}  // namespace

llvm::Value* convert(IrContext& ir, llvm::Value* v, ScalarType from, ScalarType to) {
  if (from == to) return v;
  if (to == kBool) return nonzero(ir, v, from);
  llvm::Type* type = ir.value_type(to);
  if (from == kBool) return is_floating_point(to) ? ir.b.CreateUIToFP(v, type) : ir.b.CreateZExt(v, type);
  if (is_floating_point(from)) {
    if (is_floating_point(to)) return ir.b.CreateFPCast(v, type);
    return float_to_int(ir, v, type);
  }
  if (is_floating_point(to)) return ir.b.CreateSIToFP(v, type);
  return ir.b.CreateSExtOrTrunc(v, type);
}

llvm::Value* convert_scalar(IrContext& ir, llvm::Value* bits, ScalarType kind, ScalarType to) {
  if (is_floating_point(kind)) {
    llvm::Value* d = ir.b.CreateBitCast(bits, ir.b.getDoubleTy());
    if (to == kBool || is_floating_point(to)) return convert(ir, d, kFloat64, to);
    return ir.b.CreateTrunc(float_to_int(ir, d, ir.b.getInt64Ty()), ir.value_type(to));
  }
  if (to == kBool) return nonzero(ir, bits, kInt64);
  if (is_floating_point(to)) return convert(ir, ir.b.CreateSIToFP(bits, ir.b.getDoubleTy()), kFloat64, to);
  return ir.b.CreateTrunc(bits, ir.value_type(to));
}

}  // namespace kiln::jit::codegen
