#include "jit/codegen/inline_exp.h"

#include <llvm/IR/Intrinsics.h>

#include "jit/codegen/power_of_two_scaling.h"

namespace kiln::jit::codegen {
namespace {

llvm::Value* expf_inline(IrContext& ir, llvm::Value* x) {
  llvm::IRBuilder<>& b = ir.b;
  auto c = [&](double v) { return ir.constant(kFloat32, v); };
  auto fmuladd = [&](llvm::Value* a, llvm::Value* m, llvm::Value* add) {
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {b.getFloatTy()}, {a, m, add});
  };
  // Clamped to where the result is 0 or +inf anyway. The clamps are
  // selects, not minnum/maxnum, so that a NaN passes through them and
  // through every step after: NaN needs no test of its own.
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOLT(x, c(-104)), c(-104), x);
  xc = b.CreateSelect(b.CreateFCmpOGT(xc, c(89)), c(89), xc);
  // n = round(x / ln 2) by adding 1.5 * 2^23 and taking it off again: no
  // int conversion, which would be poison for a NaN.
  llvm::Value* shifted = fmuladd(xc, c(1.44269504088896341), c(kRoundingShift));
  llvm::Value* n = b.CreateFSub(shifted, c(kRoundingShift));
  llvm::Value* r = fmuladd(n, c(-0.693145751953125), xc);  // ln 2's leading 16 bits: n * it is exact
  r = fmuladd(n, c(-1.428606765330187045e-06), r);
  // p(r) = c0 r^5 + ... + c5 by Estrin's scheme: three independent pairs,
  // then r^2 and r^4, so that the chain is three fmas deep instead of five.
  llvm::Value* r2 = b.CreateFMul(r, r);
  llvm::Value* r4 = b.CreateFMul(r2, r2);
  llvm::Value* p01 = fmuladd(c(1.9875691500E-4), r, c(1.3981999507E-3));
  llvm::Value* p23 = fmuladd(c(8.3334519073E-3), r, c(4.1665795894E-2));
  llvm::Value* p45 = fmuladd(c(1.6666665459E-1), r, c(5.0000001201E-1));
  llvm::Value* p = fmuladd(p01, r4, fmuladd(p23, r2, p45));
  llvm::Value* y = b.CreateFAdd(fmuladd(p, r2, r), c(1));
  return emit_scale_by_power_of_two(ir, y, n);  // n in [-150, 129]
}

}  // namespace

llvm::Value* emit_exp(IrContext& ir, ScalarType t, llvm::Value* x) {
  if (t == kFloat32) return expf_inline(ir, x);
  return ir.call_math("exp", t, {x});
}

}  // namespace kiln::jit::codegen
