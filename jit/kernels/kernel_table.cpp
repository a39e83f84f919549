// The table from OpId to reference kernel, generated from trace/ops.def.
#include <array>

#include "jit/kernels/kernel.h"

namespace kiln::jit::kernels {
namespace {

constexpr std::array<KernelFn, trace::kNumOps> kKernels = {{
#define KILN_OP(id, name, kind, arity, rule) &id,
#include "trace/ops.def"
#undef KILN_OP
}};

}  // namespace

KernelFn kernel_for(trace::OpId op) { return kKernels[static_cast<int>(op)]; }

}  // namespace kiln::jit::kernels
