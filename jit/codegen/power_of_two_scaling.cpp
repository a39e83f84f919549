#include "jit/codegen/power_of_two_scaling.h"

#include <bit>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <kiln/error.h>

#include "jit/codegen/vector_math.h"

namespace kiln::jit::codegen {
namespace {

constexpr const char* kScalar = "kiln.scalef.f32";
constexpr unsigned kLanes[] = {4, 8, 16};

std::string vector_name(unsigned lanes) { return "kiln.scalef.v" + std::to_string(lanes) + "f32"; }

bool is_placeholder(const llvm::Function& f) {
  if (f.getName() == kScalar) return true;
  for (unsigned lanes : kLanes)
    if (f.getName() == vector_name(lanes)) return true;
  return false;
}

constexpr std::int32_t kShiftBits = std::bit_cast<std::int32_t>(static_cast<float>(kRoundingShift));

// n + 1.5 * 2^23: the sum the inline exp computed n from, when it is at
// hand, so that the two halves cost no more than before the placeholder.
llvm::Value* shifted(llvm::IRBuilder<>& b, llvm::Value* n) {
  using namespace llvm::PatternMatch;
  llvm::Value* sum = nullptr;
  if (match(n, m_FSub(m_Value(sum), m_SpecificFP(kRoundingShift))) ||
      match(n, m_FAdd(m_Value(sum), m_SpecificFP(-kRoundingShift))))  // the fsub as the optimizer rewrites it
    return sum;
  return b.CreateFAdd(n, llvm::ConstantFP::get(n->getType(), kRoundingShift));
}

// y * 2^k1 * 2^(n - k1), k1 = n / 2 rounded down: each factor a normal float
// for n in [-150, 129], and only the second product can round. The integer
// n comes from the bits of the shifted sum, not from fptosi (poison for NaN).
llvm::Value* scale_in_two_halves(llvm::IRBuilder<>& b, llvm::Value* y, llvm::Value* n) {
  llvm::Type* ints = y->getType()->getWithNewType(b.getInt32Ty());
  auto int_constant = [&](std::int32_t v) { return llvm::ConstantInt::get(ints, static_cast<std::uint64_t>(v), true); };
  auto power = [&](llvm::Value* k) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, int_constant(127)), int_constant(23)), y->getType());
  };
  llvm::Value* k = b.CreateSub(b.CreateBitCast(shifted(b, n), ints), int_constant(kShiftBits));
  llvm::Value* k1 = b.CreateAShr(k, int_constant(1));
  return b.CreateFMul(b.CreateFMul(y, power(k1)), power(b.CreateSub(k, k1)));
}

// vscalefps for the call's width, or null where the target lacks it.
llvm::Value* scalef_instruction(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Value* y, llvm::Value* n,
                                bool avx512, bool avx512vl) {
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(y->getType());
  if (type == nullptr || !avx512) return nullptr;
  llvm::Value* keep = llvm::PoisonValue::get(type);  // every lane is written: the mask is all ones
  switch (type->getNumElements()) {
    case 16: {
      llvm::Function* f = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::x86_avx512_mask_scalef_ps_512);
      return b.CreateCall(f, {y, n, keep, b.getInt16(0xffff), b.getInt32(4)});  // 4: the current rounding mode
    }
    case 8:
    case 4: {
      if (!avx512vl) return nullptr;
      const auto id = type->getNumElements() == 8 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_256
                                                  : llvm::Intrinsic::x86_avx512_mask_scalef_ps_128;
      return b.CreateCall(llvm::Intrinsic::getDeclaration(&module, id), {y, n, keep, b.getInt8(0xff)});
    }
    default: return nullptr;
  }
}

}  // namespace

llvm::Value* emit_scale_by_power_of_two(IrContext& ir, llvm::Value* y, llvm::Value* n) {
  llvm::Type* f32 = ir.b.getFloatTy();
  llvm::FunctionCallee callee = ir.module.getOrInsertFunction(kScalar, llvm::FunctionType::get(f32, {f32, f32}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  llvm::CallInst* call = ir.b.CreateCall(callee, {y, n});
  call->setDoesNotAccessMemory();
  return call;
}

void add_power_of_two_scaling_forms(llvm::TargetLibraryInfoImpl& tli) {
  // VecDesc holds StringRefs: the names live here, for the whole process.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (unsigned lanes : kLanes) {
      out.push_back(vector_name(lanes));
      out.push_back("_ZGV_LLVM_N" + std::to_string(lanes) + "vv");
    }
    return out;
  }();
  std::vector<llvm::VecDesc> forms;
  for (std::size_t i = 0; i < std::size(kLanes); ++i)
    forms.emplace_back(kScalar, names[2 * i], llvm::ElementCount::getFixed(kLanes[i]), false, names[2 * i + 1]);
  tli.addVectorizableFunctions(forms);
}

void lower_power_of_two_scaling(llvm::Module& module, const llvm::TargetMachine& tm) {
  const bool avx512 = has_target_feature(tm, "+avx512f");
  const bool avx512vl = avx512 && has_target_feature(tm, "+avx512vl");
  // The vectorizer lists the vector forms it declared in llvm.compiler.used.
  llvm::removeFromUsedLists(module, [](llvm::Constant* c) {
    auto* f = llvm::dyn_cast<llvm::Function>(c);
    return f != nullptr && is_placeholder(*f);
  });
  std::vector<llvm::Function*> placeholders;
  for (llvm::Function& f : module)
    if (is_placeholder(f)) placeholders.push_back(&f);
  for (llvm::Function* f : placeholders) {
    f->removeDeadConstantUsers();  // the old list's initializer
    while (!f->use_empty()) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(f->user_back());
      KILN_CHECK(call != nullptr && call->getCalledFunction() == f, f->getName().str(), " used other than by a call");
      llvm::IRBuilder<> b(call);
      llvm::Value* y = call->getArgOperand(0);
      llvm::Value* n = call->getArgOperand(1);
      llvm::Value* scaled = scalef_instruction(b, module, y, n, avx512, avx512vl);
      if (scaled == nullptr) scaled = scale_in_two_halves(b, y, n);
      call->replaceAllUsesWith(scaled);
      call->eraseFromParent();
    }
    f->eraseFromParent();
  }
}

}  // namespace kiln::jit::codegen
