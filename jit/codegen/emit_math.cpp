// Floating-point math emitters (jit/kernels/unary.cpp, Pow of binary.cpp):
// libm calls the loop vectorizer maps to libmvec (codegen/vector_math.h),
// exp inline (codegen/inline_exp.h), and the composite ops written exactly as their tier-0 formulas, operation
// for operation, so that rounding matches.
#include <numbers>
#include <string>

#include <llvm/IR/Intrinsics.h>

#include "jit/codegen/emit_ops.h"
#include "jit/codegen/inline_exp.h"

namespace kiln::jit::codegen {
namespace {

using trace::OpId;

// Integer power by squaring with wrapping multiplies, as tier 0's Pow: a
// negative exponent gives 1 for base 1, +-1 for base -1, else 0. Emitted
// once per module as an internal function (the optimizer inlines it).
llvm::Function* integer_pow_function(IrContext& ir, llvm::Type* type) {
  const std::string name = "kiln.ipow.i" + std::to_string(type->getIntegerBitWidth());
  if (llvm::Function* existing = ir.module.getFunction(name)) return existing;
  auto* f = llvm::Function::Create(llvm::FunctionType::get(type, {type, type}, false),
                                   llvm::GlobalValue::InternalLinkage, name, ir.module);
  f->setDoesNotAccessMemory();
  f->setDoesNotThrow();
  f->setWillReturn();
  llvm::LLVMContext& context = ir.context();
  auto* entry = llvm::BasicBlock::Create(context, "entry", f);
  auto* negative = llvm::BasicBlock::Create(context, "negative", f);
  auto* loop = llvm::BasicBlock::Create(context, "loop", f);
  auto* done = llvm::BasicBlock::Create(context, "done", f);
  llvm::IRBuilder<> b(entry);
  llvm::Value* base = f->getArg(0);
  llvm::Value* exponent = f->getArg(1);
  auto* zero = llvm::ConstantInt::get(type, 0);
  auto* one = llvm::ConstantInt::get(type, 1);
  auto* minus_one = llvm::ConstantInt::getSigned(type, -1);
  b.CreateCondBr(b.CreateICmpSLT(exponent, zero), negative, loop);

  b.SetInsertPoint(negative);
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(exponent, one), zero);
  llvm::Value* minus_one_result = b.CreateSelect(odd, minus_one, one);
  llvm::Value* result = b.CreateSelect(b.CreateICmpEQ(base, minus_one), minus_one_result, zero);
  b.CreateRet(b.CreateSelect(b.CreateICmpEQ(base, one), one, result));

  // loop: while (e != 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
  b.SetInsertPoint(loop);
  llvm::PHINode* r = b.CreatePHI(type, 2, "r");
  llvm::PHINode* x = b.CreatePHI(type, 2, "x");
  llvm::PHINode* e = b.CreatePHI(type, 2, "e");
  r->addIncoming(one, entry);
  x->addIncoming(base, entry);
  e->addIncoming(exponent, entry);
  auto* body = llvm::BasicBlock::Create(context, "body", f, done);
  b.CreateCondBr(b.CreateICmpEQ(e, zero), done, body);
  b.SetInsertPoint(body);
  llvm::Value* e_odd = b.CreateICmpNE(b.CreateAnd(e, one), zero);
  r->addIncoming(b.CreateSelect(e_odd, b.CreateMul(r, x), r), body);
  x->addIncoming(b.CreateMul(x, x), body);
  e->addIncoming(b.CreateLShr(e, one), body);
  b.CreateBr(loop);

  b.SetInsertPoint(done);
  b.CreateRet(r);
  return f;
}

const char* libm_name(OpId op) {
  switch (op) {
    case OpId::Log: return "log";
    case OpId::Log1p: return "log1p";
    case OpId::Sin: return "sin";
    case OpId::Cos: return "cos";
    case OpId::Tanh: return "tanh";
    case OpId::Erf: return "erf";
    default: return nullptr;
  }
}

}  // namespace

llvm::Value* emit_math(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Value* x = args[0];
  if (instr.op == OpId::Sqrt) return ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  if (instr.op == OpId::Floor) return ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
  if (instr.op == OpId::Ceil) return ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
  if (instr.op == OpId::Round) return ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
  if (instr.op == OpId::Trunc) return ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
  if (instr.op == OpId::Rsqrt)
    return ir.b.CreateFDiv(ir.constant(instr.dtype, 1), ir.b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  if (instr.op == OpId::Reciprocal) return ir.b.CreateFDiv(ir.constant(instr.dtype, 1), x);
  if (instr.op == OpId::Exp) return emit_exp(ir, instr.dtype, x);
  const char* name = libm_name(instr.op);
  KILN_CHECK(name != nullptr, trace::name(instr.op), " is not a math function");
  return ir.call_math(name, instr.dtype, {x});
}

// 1 / (1 + exp(-x))
llvm::Value* emit_sigmoid(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Value* one = ir.constant(instr.dtype, 1);
  llvm::Value* e = emit_exp(ir, instr.dtype, ir.b.CreateFNeg(args[0]));
  return ir.b.CreateFDiv(one, ir.b.CreateFAdd(one, e));
}

// attr 0: 0.5 * x * (1 + erf(x * sqrt(2)/2));
// attr 1: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x * x * x))).
llvm::Value* emit_gelu(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  const ScalarType t = instr.dtype;
  llvm::Value* x = args[0];
  llvm::IRBuilder<>& b = ir.b;
  llvm::Value* f;
  if (instr.attr == 1) {
    llvm::Value* cube = b.CreateFMul(b.CreateFMul(b.CreateFMul(ir.constant(t, 0.044715), x), x), x);
    llvm::Value* inner = b.CreateFMul(ir.constant(t, std::numbers::sqrt2 * std::numbers::inv_sqrtpi), b.CreateFAdd(x, cube));
    f = ir.call_math("tanh", t, {inner});
  } else {
    f = ir.call_math("erf", t, {b.CreateFMul(x, ir.constant(t, std::numbers::sqrt2 / 2))});
  }
  return b.CreateFMul(b.CreateFMul(ir.constant(t, 0.5), x), b.CreateFAdd(ir.constant(t, 1), f));
}

llvm::Value* emit_pow(IrContext& ir, const KernelInstr& instr, llvm::ArrayRef<llvm::Value*> args) {
  if (is_floating_point(instr.dtype)) return ir.call_math("pow", instr.dtype, {args[0], args[1]});
  llvm::Function* ipow = integer_pow_function(ir, ir.value_type(instr.dtype));
  return ir.b.CreateCall(ipow, {args[0], args[1]});
}

}  // namespace kiln::jit::codegen
