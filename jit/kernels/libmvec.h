// glibc's libmvec for tier 0's transcendental kernels. Scalar libm made
// them the bulk of an interpreted program's time (72% of the instructions
// of a loop of changing 12-op chains were in scalar expf, expm1f and
// tanhf). libkiln is built for any x86-64, so the AVX2 forms
// (`_ZGVdN8v_expf`: 8 floats, `_ZGVdN4v_exp`: 4 doubles; at most 4 ulp,
// the functions tier 1's vectorized loops call) are called from functions
// compiled for AVX2, and only on CPUs that have AVX2 and FMA: the check is
// made once per process, each kernel call reads its result once. Elsewhere
// the kernels keep their scalar libm loop. Private to jit/kernels.
#pragma once

#include <cstdint>

namespace kiln::jit::kernels {

/// The libm functions tier 0 maps over arrays with libmvec.
enum class MathFn { Exp, Log, Log1p, Sin, Cos, Tanh, Erf };

/// Whether tier 0's kernels use libmvec now: on CPUs with AVX2 and FMA,
/// unless set_vector_math(false) turned it off.
bool vector_math_enabled();

/// Turns libmvec on or off for tier 0 (tests compare the two); `true` is
/// ignored on a CPU without AVX2 and FMA.
void set_vector_math(bool on);

/// out[i] = f(in[i]) for i < n, with f's libmvec form, the last
/// partial vector padded: every element goes through the same code, so a
/// value's result does not depend on where it sits. Only while
/// vector_math_enabled(). `out` may be `in`.
void vector_math(MathFn f, float* out, const float* in, std::int64_t n);
void vector_math(MathFn f, double* out, const double* in, std::int64_t n);

/// out[i] = pow(a[i], b[i]) for i < n, likewise.
void vector_pow(float* out, const float* a, const float* b, std::int64_t n);
void vector_pow(double* out, const double* a, const double* b, std::int64_t n);

}  // namespace kiln::jit::kernels
