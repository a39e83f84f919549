#include "jit/kernels/cpu_features.h"

namespace kiln::jit::kernels {
namespace {

struct CpuFeatures {
  bool avx2_fma = false;
  bool avx512f_fma = false;
};

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    __builtin_cpu_init();  // may run before libgcc's constructor probed the CPU
    const bool fma = __builtin_cpu_supports("fma");
    return CpuFeatures{fma && __builtin_cpu_supports("avx2"), fma && __builtin_cpu_supports("avx512f")};
  }();
  return features;
}

}  // namespace

bool cpu_has_avx2_fma() { return cpu_features().avx2_fma; }
bool cpu_has_avx512f_fma() { return cpu_features().avx512f_fma; }

}  // namespace kiln::jit::kernels
