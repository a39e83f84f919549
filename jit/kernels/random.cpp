// rand and randn: Philox4x32-10 streams (the generator is documented in philox.h).
#include <cmath>
#include <numbers>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/elementwise.h"
#include "jit/kernels/philox.h"

namespace kiln::jit::kernels {
namespace {

struct RandomParams {
  std::uint64_t seed, offset;
};

RandomParams random_params(const KernelCall& c) {
  return {static_cast<std::uint64_t>(c.node->in[0].scalar.to_long()),
          static_cast<std::uint64_t>(c.node->in[1].scalar.to_long())};
}

template <class T>
T uniform_from(const PhiloxBlock& r) {
  if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(r[0] >> 8) * 0x1p-24f;
  else
    return static_cast<double>((std::uint64_t{r[0]} << 21) ^ (r[1] >> 11)) * 0x1p-53;
}

double normal_from(const PhiloxBlock& r) {
  const double u1 = (r[0] + 0.5) * 0x1p-32, u2 = (r[1] + 0.5) * 0x1p-32;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

template <class T, bool Normal>
void random_loop(const void* params, char* out, const char* const*, std::int64_t first, std::int64_t n) {
  const auto& p = *static_cast<const RandomParams*>(params);
  T* o = reinterpret_cast<T*>(out);
  for (std::int64_t i = 0; i < n; ++i) {
    const PhiloxBlock r = philox_for_element(p.seed, p.offset, static_cast<std::uint64_t>(first + i));
    if constexpr (Normal) o[i] = static_cast<T>(normal_from(r));
    else o[i] = uniform_from<T>(r);
  }
}

template <bool Normal>
void run_random(const KernelCall& c, const char* op) {
  const RandomParams params = random_params(c);
  visit_dtype<kFloatTypes>(c.out.dtype, op, [&]<class T>() {
    run_elementwise(c.out, {}, &random_loop<T, Normal>, &params);
  });
}

}  // namespace

void RandUniform(const KernelCall& c) { run_random<false>(c, "rand"); }
void RandNormal(const KernelCall& c) { run_random<true>(c, "randn"); }

}  // namespace kiln::jit::kernels
