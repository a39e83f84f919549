// y * 2^n in compiled code (jit/codegen/power_of_two_scaling.h): the
// placeholder calls become vscalefps only where the target has it for their
// width, the two halves elsewhere, and none is left; and an exp kernel
// compiled for AVX2 (two halves in vectors) gives the same bits as the one
// compiled for this host (vscalefps on AVX-512, two halves in the scalar
// remainder), over exp's whole range and its special values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include "jit/codegen/emit_object.h"
#include "jit/codegen/lower.h"
#include "jit/codegen/optimize.h"
#include "jit/codegen/power_of_two_scaling.h"
#include "jit/compile_pipeline.h"
#include "jit/orc/session.h"

namespace kiln::jit {
namespace {

// A target machine for this process's triple, `cpu` and `features`.
std::unique_ptr<llvm::TargetMachine> machine_for(const std::string& cpu, const std::string& features = "") {
  OrcSession::instance();  // initializes the native target
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  EXPECT_NE(target, nullptr) << error;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, cpu, features, llvm::TargetOptions(), std::nullopt));
}

// Counts, in `f`, calls of vscalefps (any width) and calls of anything else.
struct Calls {
  int scalef = 0, other = 0;
};
Calls calls_in(const llvm::Function& f) {
  Calls c;
  for (const llvm::BasicBlock& block : f)
    for (const llvm::Instruction& i : block)
      if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&i)) {
        const llvm::Intrinsic::ID id = call->getIntrinsicID();
        const bool scalef = id == llvm::Intrinsic::x86_avx512_mask_scalef_ps_512 ||
                            id == llvm::Intrinsic::x86_avx512_mask_scalef_ps_256 ||
                            id == llvm::Intrinsic::x86_avx512_mask_scalef_ps_128;
        ++(scalef ? c.scalef : c.other);
      }
  return c;
}

// A module of three functions, each y * 2^n through a placeholder: of 16
// lanes, of 8, and scalar (as the vectorizer and the remainder loop leave them).
std::unique_ptr<llvm::Module> placeholder_module(llvm::LLVMContext& context) {
  auto module = std::make_unique<llvm::Module>("scaling", context);
  llvm::IRBuilder<> b(context);
  codegen::IrContext ir(*module, b);
  for (unsigned lanes : {16u, 8u, 1u}) {
    llvm::Type* t = lanes == 1 ? b.getFloatTy() : llvm::FixedVectorType::get(b.getFloatTy(), lanes);
    auto* f = llvm::Function::Create(llvm::FunctionType::get(t, {t, t}, false), llvm::Function::ExternalLinkage,
                                     "scale" + std::to_string(lanes), *module);
    b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
    llvm::Value* scaled;
    if (lanes == 1) {
      scaled = codegen::emit_scale_by_power_of_two(ir, f->getArg(0), f->getArg(1));
    } else {
      // The vector form the vectorizer would have declared.
      const std::string name = "kiln.scalef.v" + std::to_string(lanes) + "f32";
      scaled = b.CreateCall(module->getOrInsertFunction(name, llvm::FunctionType::get(t, {t, t}, false)),
                            {f->getArg(0), f->getArg(1)});
    }
    b.CreateRet(scaled);
  }
  return module;
}

TEST(PowerOfTwoScaling, VscalefWhereTheTargetHasItAndTwoHalvesElsewhere) {
  struct Case {
    const char* cpu;
    const char* features;
    int scalef16, scalef8;  // vscalefps calls expected in the 16- and 8-lane functions
  };
  for (const Case& c : {Case{"x86-64-v4", "", 1, 1}, Case{"x86-64-v3", "+avx512f", 1, 0}, Case{"x86-64-v3", "", 0, 0}}) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = placeholder_module(context);
    const std::unique_ptr<llvm::TargetMachine> tm = machine_for(c.cpu, c.features);
    ASSERT_NE(tm, nullptr);
    codegen::lower_power_of_two_scaling(*module, *tm);
    std::string problems;
    llvm::raw_string_ostream out(problems);
    EXPECT_FALSE(llvm::verifyModule(*module, &out)) << c.cpu << ": " << problems;
    for (const llvm::Function& f : *module)
      EXPECT_FALSE(f.getName().starts_with("kiln.scalef")) << c.cpu << ": " << f.getName().str() << " is left";
    const Calls v16 = calls_in(*module->getFunction("scale16"));
    const Calls v8 = calls_in(*module->getFunction("scale8"));
    const Calls scalar = calls_in(*module->getFunction("scale1"));
    EXPECT_EQ(v16.scalef, c.scalef16) << c.cpu;
    EXPECT_EQ(v8.scalef, c.scalef8) << c.cpu << " (AVX-512VL for 8 lanes)";
    EXPECT_EQ(v16.other + v8.other + scalar.other + scalar.scalef, 0) << c.cpu << ": the two halves call nothing";
  }
}

// exp over a float32 vector: one input, one output, contiguous.
KernelSpec exp_spec(std::int64_t n) {
  KernelSpec spec;
  spec.ndim = 1;
  spec.sizes[0] = n;
  KernelOperand contiguous;
  contiguous.strides[0] = 1;
  spec.inputs.push_back(contiguous);
  KernelInstr exp;
  exp.op = trace::OpId::Exp;
  exp.arity = 1;
  exp.args[0] = {ArgRef::Input, 0};
  spec.instrs.push_back(exp);
  spec.outputs.push_back({0, contiguous});
  return spec;
}

// `spec` compiled at O3 for `tm`'s CPU and linked into this process.
LinkedKernel compile_for(const KernelSpec& spec, llvm::TargetMachine& tm) {
  llvm::LLVMContext context;
  const std::string symbol = kernel_symbol(spec.key(), 3);
  std::unique_ptr<llvm::Module> module = codegen::lower(spec, symbol, context, tm);
  codegen::optimize(*module, tm, 3, false);
  return OrcSession::instance().load_object(spec.key(), codegen::emit_object(*module, tm));
}

std::vector<float> run(const LinkedKernel& kernel, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  void* const ptrs[] = {const_cast<float*>(x.data()), y.data()};
  kernel.fn(0, static_cast<std::int64_t>(x.size()), ptrs, nullptr);
  return y;
}

TEST(PowerOfTwoScaling, ExpForAvx2GivesTheSameBitsAsForThisHost) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2 to run it on";
  std::vector<float> x;
  for (double v = -110; v < 90; v += 0.00731) x.push_back(static_cast<float>(v));
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) x.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.f, -0.f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 88.72283935546875f, -103.97f,
                  -87.3365f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()})
    x.push_back(v);
  while (x.size() % 64 != 13) x.push_back(1.f);  // a remainder after the vector loop
  const KernelSpec spec = exp_spec(static_cast<std::int64_t>(x.size()));

  const OrcSession& session = OrcSession::instance();
  const std::unique_ptr<llvm::TargetMachine> host = machine_for(session.host_cpu(), session.host_features());
  const std::unique_ptr<llvm::TargetMachine> avx2 = machine_for("x86-64-v3");
  ASSERT_NE(host, nullptr);
  ASSERT_NE(avx2, nullptr);
  const std::vector<float> on_host = run(compile_for(spec, *host), x);
  const std::vector<float> on_avx2 = run(compile_for(spec, *avx2), x);
  int differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool same = std::isnan(on_host[i]) ? std::isnan(on_avx2[i])
                                             : std::bit_cast<std::uint32_t>(on_host[i]) ==
                                                   std::bit_cast<std::uint32_t>(on_avx2[i]);
    if (!same && ++differ <= 5)
      ADD_FAILURE() << "exp(" << x[i] << "): " << on_host[i] << " on " << host->getTargetCPU().str() << ", "
                    << on_avx2[i] << " for AVX2";
  }
  EXPECT_EQ(differ, 0);
}

}  // namespace
}  // namespace kiln::jit
