#include "jit/kernels/libmvec.h"

#include <atomic>
#include <cstring>

#include "jit/kernels/cpu_features.h"

namespace kiln::jit::kernels {
namespace {

typedef float Floats8 __attribute__((vector_size(32)));
typedef double Doubles4 __attribute__((vector_size(32)));

}  // namespace
}  // namespace kiln::jit::kernels

// libmvec's AVX2 forms (glibc's x86_64 vector ABI, "d": arguments and result
// in ymm registers); called only from functions compiled for AVX2.
extern "C" {
using kiln::jit::kernels::Doubles4;
using kiln::jit::kernels::Floats8;
Floats8 _ZGVdN8v_expf(Floats8);
Floats8 _ZGVdN8v_logf(Floats8);
Floats8 _ZGVdN8v_log1pf(Floats8);
Floats8 _ZGVdN8v_sinf(Floats8);
Floats8 _ZGVdN8v_cosf(Floats8);
Floats8 _ZGVdN8v_tanhf(Floats8);
Floats8 _ZGVdN8v_erff(Floats8);
Floats8 _ZGVdN8vv_powf(Floats8, Floats8);
Doubles4 _ZGVdN4v_exp(Doubles4);
Doubles4 _ZGVdN4v_log(Doubles4);
Doubles4 _ZGVdN4v_log1p(Doubles4);
Doubles4 _ZGVdN4v_sin(Doubles4);
Doubles4 _ZGVdN4v_cos(Doubles4);
Doubles4 _ZGVdN4v_tanh(Doubles4);
Doubles4 _ZGVdN4v_erf(Doubles4);
Doubles4 _ZGVdN4vv_pow(Doubles4, Doubles4);
}

namespace kiln::jit::kernels {
namespace {

struct Forms {
  MathFn fn;
  Floats8 (*single)(Floats8);
  Doubles4 (*twice)(Doubles4);
};
constexpr Forms kForms[] = {
    {MathFn::Exp, _ZGVdN8v_expf, _ZGVdN4v_exp},       {MathFn::Log, _ZGVdN8v_logf, _ZGVdN4v_log},
    {MathFn::Log1p, _ZGVdN8v_log1pf, _ZGVdN4v_log1p}, {MathFn::Sin, _ZGVdN8v_sinf, _ZGVdN4v_sin},
    {MathFn::Cos, _ZGVdN8v_cosf, _ZGVdN4v_cos},       {MathFn::Tanh, _ZGVdN8v_tanhf, _ZGVdN4v_tanh},
    {MathFn::Erf, _ZGVdN8v_erff, _ZGVdN4v_erf},
};
constexpr bool forms_in_enum_order() {
  for (int k = 0; k < static_cast<int>(std::size(kForms)); ++k)
    if (static_cast<int>(kForms[k].fn) != k) return false;
  return true;
}
static_assert(forms_in_enum_order(), "kForms is indexed by MathFn");

const Forms& forms(MathFn f) { return kForms[static_cast<int>(f)]; }

std::atomic<bool>& enabled() {
  static std::atomic<bool> on{cpu_has_avx2_fma()};
  return on;
}

template <class, class Vec>
using AsVector = Vec;

// m <= the lanes of Vec values from p; the lanes beyond m are zero (every
// function here is defined at 0, so padding raises nothing that matters).
template <class Vec, class T>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline Vec load(const T* p, std::int64_t m) {
  Vec v{};
  std::memcpy(&v, p, static_cast<std::size_t>(m) * sizeof(T));
  return v;
}

template <class Vec, class T, class... In>
[[gnu::target("avx2,fma")]] void map_vectors(Vec (*f)(AsVector<In, Vec>...), T* out, std::int64_t n, const In*... in) {
  constexpr std::int64_t kLanes = sizeof(Vec) / sizeof(T);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Vec r = f(load<Vec>(in + i, kLanes)...);
    std::memcpy(out + i, &r, sizeof r);
  }
  if (i == n) return;
  const Vec r = f(load<Vec>(in + i, n - i)...);
  std::memcpy(out + i, &r, static_cast<std::size_t>(n - i) * sizeof(T));
}

}  // namespace

bool vector_math_enabled() { return enabled().load(std::memory_order_relaxed); }

void set_vector_math(bool on) { enabled().store(on && cpu_has_avx2_fma(), std::memory_order_relaxed); }

void vector_math(MathFn f, float* out, const float* in, std::int64_t n) { map_vectors(forms(f).single, out, n, in); }
void vector_math(MathFn f, double* out, const double* in, std::int64_t n) { map_vectors(forms(f).twice, out, n, in); }

void vector_pow(float* out, const float* a, const float* b, std::int64_t n) { map_vectors(_ZGVdN8vv_powf, out, n, a, b); }
void vector_pow(double* out, const double* a, const double* b, std::int64_t n) {
  map_vectors(_ZGVdN4vv_pow, out, n, a, b);
}

}  // namespace kiln::jit::kernels
