// The op table, and the arithmetic, comparison, logical and selection
// emitters (jit/kernels/unary.cpp, binary.cpp, compare.cpp, copy.cpp).
#include "jit/codegen/emit_ops.h"

#include <llvm/IR/Intrinsics.h>

#include "jit/codegen/convert.h"

namespace kiln::jit::codegen {

using trace::OpId;

OpEmitter op_emitter(OpId op) {
  // No default: -Wswitch names an op added to ops.def without an entry here.
  switch (op) {
    case OpId::Copy: return {kAllTypes, emit_copy};
    case OpId::Neg: return {kNumericTypes, emit_neg};
    case OpId::Abs: return {kNumericTypes, emit_abs};
    case OpId::Exp:
    case OpId::Log:
    case OpId::Log1p:
    case OpId::Sqrt:
    case OpId::Rsqrt:
    case OpId::Reciprocal:
    case OpId::Sin:
    case OpId::Cos:
    case OpId::Tanh:
    case OpId::Erf:
    case OpId::Floor:
    case OpId::Ceil:
    case OpId::Round:
    case OpId::Trunc: return {kFloatTypes, emit_math};
    case OpId::Sigmoid: return {kFloatTypes, emit_sigmoid};
    case OpId::Relu: return {kNumericTypes, emit_relu};
    case OpId::Gelu: return {kFloatTypes, emit_gelu};
    case OpId::LogicalNot: return {kAllTypes, emit_logical};
    case OpId::Add: return {kAllTypes, emit_add};
    case OpId::Sub: return {kNumericTypes, emit_sub};
    case OpId::Mul: return {kAllTypes, emit_mul};
    case OpId::Div: return {kFloatTypes, emit_div};
    case OpId::Fmod:
    case OpId::Remainder: return {kFloatTypes, emit_fmod};
    case OpId::FloorDivide: return {kFloatTypes, emit_floor_divide};
    case OpId::Pow: return {kNumericTypes, emit_pow};
    case OpId::Maximum: return {kAllTypes, emit_maximum};
    case OpId::Minimum: return {kAllTypes, emit_minimum};
    case OpId::Eq:
    case OpId::Ne:
    case OpId::Lt:
    case OpId::Le:
    case OpId::Gt:
    case OpId::Ge: return {kAllTypes, emit_compare};
    case OpId::LogicalAnd:
    case OpId::LogicalOr: return {kAllTypes, emit_logical};
    case OpId::Where: return {kAllTypes, emit_where};
    case OpId::Fill:
    case OpId::Iota:
    case OpId::Linspace:
    case OpId::Eye:
    case OpId::RandUniform:
    case OpId::RandNormal:
    case OpId::Sum:
    case OpId::Prod:
    case OpId::Amax:
    case OpId::Amin:
    case OpId::Argmax:
    case OpId::Argmin:
    case OpId::MatMul:
    case OpId::IndexSelect:
    case OpId::Gather:
    case OpId::ScatterAdd:
    case OpId::Cumsum:
    case OpId::Cumprod:
    case OpId::Argsort:
    case OpId::Im2col:
    case OpId::Col2im: return {};
  }
  return {};
}

namespace {

bool is_float(const KernelInstr& instr) { return is_floating_point(instr.dtype); }

// NaN wins, else the strict comparison picks, as tier 0's
// `a != a ? a : b != b ? b : a > b ? a : b` (so max(+0, -0) is -0, which
// llvm.maximum would not give).
llvm::Value* float_extremum(IrContext& ir, llvm::Value* a, llvm::Value* b, bool maximum) {
  llvm::Value* pick_a = maximum ? ir.b.CreateFCmpOGT(a, b) : ir.b.CreateFCmpOLT(a, b);
  llvm::Value* ordered = ir.b.CreateSelect(pick_a, a, b);
  llvm::Value* b_or_ordered = ir.b.CreateSelect(ir.b.CreateFCmpUNO(b, b), b, ordered);
  return ir.b.CreateSelect(ir.b.CreateFCmpUNO(a, a), a, b_or_ordered);
}

}  // namespace

llvm::Value* emit_copy(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  return convert(ir, args[0], instr.dtype, instr.out_dtype);
}

llvm::Value* emit_neg(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  return is_float(instr) ? ir.b.CreateFNeg(args[0]) : ir.b.CreateSub(ir.constant(instr.dtype, 0), args[0]);
}

llvm::Value* emit_abs(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  if (is_float(instr)) return ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
  return ir.b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, args[0], ir.b.getFalse());  // INT_MIN wraps
}

// `x < 0 ? 0 : x`: NaN (and -0) pass through.
llvm::Value* emit_relu(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Value* zero = ir.constant(instr.dtype, 0);
  llvm::Value* negative = is_float(instr) ? ir.b.CreateFCmpOLT(args[0], zero) : ir.b.CreateICmpSLT(args[0], zero);
  return ir.b.CreateSelect(negative, zero, args[0]);
}

llvm::Value* emit_add(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  if (instr.dtype == kBool) return ir.b.CreateOr(args[0], args[1]);
  return is_float(instr) ? ir.b.CreateFAdd(args[0], args[1]) : ir.b.CreateAdd(args[0], args[1]);
}

llvm::Value* emit_sub(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  return is_float(instr) ? ir.b.CreateFSub(args[0], args[1]) : ir.b.CreateSub(args[0], args[1]);
}

llvm::Value* emit_mul(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  if (instr.dtype == kBool) return ir.b.CreateAnd(args[0], args[1]);
  return is_float(instr) ? ir.b.CreateFMul(args[0], args[1]) : ir.b.CreateMul(args[0], args[1]);
}

// frem is C's fmod; remainder moves a nonzero result to the divisor's sign.
llvm::Value* emit_fmod(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  llvm::IRBuilder<>& b = ir.b;
  llvm::Value* mod = b.CreateFRem(args[0], args[1]);
  if (instr.op == OpId::Fmod) return mod;
  llvm::Value* zero = ir.constant(instr.dtype, 0);
  llvm::Value* differ = b.CreateXor(b.CreateFCmpOLT(args[1], zero), b.CreateFCmpOLT(mod, zero));
  llvm::Value* shift = b.CreateAnd(b.CreateFCmpUNE(mod, zero), differ);
  return b.CreateSelect(shift, b.CreateFAdd(mod, args[1]), mod);
}

// The tier-0 kernel's steps (jit/kernels/binary.cpp), branch-free.
llvm::Value* emit_floor_divide(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  llvm::IRBuilder<>& b = ir.b;
  llvm::Value *a = args[0], *d = args[1];
  llvm::Value* zero = ir.constant(instr.dtype, 0);
  llvm::Value* one = ir.constant(instr.dtype, 1);
  llvm::Value* quotient = b.CreateFDiv(a, d);
  llvm::Value* mod = b.CreateFRem(a, d);
  llvm::Value* div = b.CreateFDiv(b.CreateFSub(a, mod), d);
  llvm::Value* differ = b.CreateXor(b.CreateFCmpOLT(d, zero), b.CreateFCmpOLT(mod, zero));
  div = b.CreateSelect(b.CreateAnd(b.CreateFCmpUNE(mod, zero), differ), b.CreateFSub(div, one), div);
  llvm::Value* floordiv = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
  floordiv = b.CreateSelect(b.CreateFCmpOGT(b.CreateFSub(div, floordiv), ir.constant(instr.dtype, 0.5)),
                            b.CreateFAdd(floordiv, one), floordiv);
  floordiv = b.CreateSelect(b.CreateFCmpOEQ(div, zero), b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quotient),
                            floordiv);
  return b.CreateSelect(b.CreateFCmpOEQ(d, zero), quotient, floordiv);
}

llvm::Value* emit_div(IrContext& ir, const KernelInstr&, llvm::ArrayRef<llvm::Value*> args) {
  return ir.b.CreateFDiv(args[0], args[1]);
}

llvm::Value* emit_maximum(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  if (instr.dtype == kBool) return ir.b.CreateOr(args[0], args[1]);
  if (is_float(instr)) return float_extremum(ir, args[0], args[1], true);
  return ir.b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, args[0], args[1]);
}

llvm::Value* emit_minimum(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  if (instr.dtype == kBool) return ir.b.CreateAnd(args[0], args[1]);
  if (is_float(instr)) return float_extremum(ir, args[0], args[1], false);
  return ir.b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, args[0], args[1]);
}

// C++ comparison operators: floats ordered (NaN compares false) except `!=`;
// integers signed; bools as the integers 0 and 1.
llvm::Value* emit_compare(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  using P = llvm::CmpInst::Predicate;
  struct Predicates { P f, s, u; };
  Predicates p{};
  switch (instr.op) {
    case OpId::Eq: p = {P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ}; break;
    case OpId::Ne: p = {P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE}; break;
    case OpId::Lt: p = {P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT}; break;
    case OpId::Le: p = {P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE}; break;
    case OpId::Gt: p = {P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT}; break;
    case OpId::Ge: p = {P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE}; break;
    default: KILN_CHECK(false, trace::name(instr.op), " is not a comparison");
  }
  if (is_float(instr)) return ir.b.CreateFCmp(p.f, args[0], args[1]);
  return ir.b.CreateICmp(instr.dtype == kBool ? p.u : p.s, args[0], args[1]);
}

// Operands read as truth values (nonzero; NaN is nonzero); no short circuit.
llvm::Value* emit_logical(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Value* a = convert(ir, args[0], instr.dtype, kBool);
  if (instr.op == OpId::LogicalNot) return ir.b.CreateNot(a);
  llvm::Value* b = convert(ir, args[1], instr.dtype, kBool);
  return instr.op == OpId::LogicalAnd ? ir.b.CreateAnd(a, b) : ir.b.CreateOr(a, b);
}

llvm::Value* emit_where(IrContext& ir, const KernelInstr&, llvm::ArrayRef<llvm::Value*> args) {
  return ir.b.CreateSelect(args[0], args[1], args[2]);
}

}  // namespace kiln::jit::codegen
