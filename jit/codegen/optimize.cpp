#include "jit/codegen/optimize.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>

#include "jit/codegen/power_of_two_scaling.h"
#include "jit/codegen/vector_math.h"

namespace kiln::jit::codegen {

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool vector_math) {
  const bool o3 = opt_level >= 3;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.LoopInterleaving = true;
  tuning.SLPVectorization = o3;
  tuning.LoopUnrolling = true;

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm, tuning);
  // Registered first, so that registerFunctionAnalyses keeps this one.
  llvm::TargetLibraryInfoImpl tli = vector_math ? library_info(tm) : llvm::TargetLibraryInfoImpl(tm.getTargetTriple());
  add_power_of_two_scaling_forms(tli);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tli); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(o3 ? llvm::OptimizationLevel::O3
                                                                    : llvm::OptimizationLevel::O1);
  mpm.run(module, mam);
  lower_power_of_two_scaling(module, tm);
}

}  // namespace kiln::jit::codegen
