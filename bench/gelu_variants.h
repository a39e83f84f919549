// The GELU chain three ways -- recorded op by op in kiln, a hand-written
// scalar loop, a hand-written loop over glibc's libmvec -- and the STREAM
// triad, the bandwidth ceiling. Included by jit_bench.cpp and peers_bench.cpp.
#pragma once

#include <dlfcn.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include <kiln/kiln.h>

namespace {

// ---- the chain, in kiln and by hand ----------------------------------------

inline kiln::Tensor gelu_chain(const kiln::Tensor& x) {
  return 0.5 * x * (1 + kiln::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
}

// Runs the chain and materializes the result (the segment runs here).
inline void run_chain(const kiln::Tensor& x) {
  kiln::Tensor y = gelu_chain(x);
  benchmark::DoNotOptimize(y.data_ptr<float>());
}

inline int threads() { return kiln::get_num_threads(); }

// The hand loops and the triad run on as many threads as kiln's kernels
// (one arena per thread count: benchmarks change kiln's between rows).
inline tbb::task_arena& arena() {
  static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
  std::unique_ptr<tbb::task_arena>& a = arenas[threads()];
  if (!a) a = std::make_unique<tbb::task_arena>(threads());
  return *a;
}

template <class F>
inline void parallel(std::int64_t n, F f) {
  arena().execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, n, std::max<std::int64_t>(1, n / threads())),
        [&](const tbb::blocked_range<std::int64_t>& r) { f(r.begin(), r.end()); }, tbb::static_partitioner());
  });
}

inline float gelu_scalar(float x) {
  return 0.5f * x * (1.f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}

inline void hand_scalar(const float* x, float* y, std::int64_t n) {
  parallel(n, [=](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) y[i] = gelu_scalar(x[i]);
  });
}

// The same loop with glibc's vector tanhf (libmvec), which GCC only uses by
// itself under -ffast-math: the bar DESIGN.md sets for fused kernels.
typedef float v16sf __attribute__((vector_size(64)));
typedef float v8sf __attribute__((vector_size(32)));
using Tanh16 = v16sf (*)(v16sf);
using Tanh8 = v8sf (*)(v8sf);

struct VecTanh {
  Tanh16 f16 = nullptr;  // _ZGVeN16v_tanhf, AVX-512
  Tanh8 f8 = nullptr;    // _ZGVdN8v_tanhf, AVX2
  const char* name = "none";
};

inline const VecTanh& vec_tanh() {
  static const VecTanh v = [] {
    VecTanh r;
    void* lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return r;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
      if (void* s = dlsym(lib, "_ZGVeN16v_tanhf")) {
        r.f16 = reinterpret_cast<Tanh16>(s);
        r.name = "libmvec _ZGVeN16v_tanhf (AVX-512)";
        return r;
      }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      if (void* s = dlsym(lib, "_ZGVdN8v_tanhf")) {
        r.f8 = reinterpret_cast<Tanh8>(s);
        r.name = "libmvec _ZGVdN8v_tanhf (AVX2)";
      }
    return r;
  }();
  return v;
}

__attribute__((target("avx512f"))) void gelu_mvec16(const float* x, float* y, std::int64_t b, std::int64_t e, Tanh16 th) {
  std::int64_t i = b;
  for (; i + 16 <= e; i += 16) {
    v16sf v;
    std::memcpy(&v, x + i, sizeof v);
    v16sf t = th(0.7978845608f * (v + 0.044715f * v * v * v));
    v16sf r = 0.5f * v * (1.f + t);
    std::memcpy(y + i, &r, sizeof r);
  }
  for (; i < e; ++i) y[i] = gelu_scalar(x[i]);
}

__attribute__((target("avx2,fma"))) void gelu_mvec8(const float* x, float* y, std::int64_t b, std::int64_t e, Tanh8 th) {
  std::int64_t i = b;
  for (; i + 8 <= e; i += 8) {
    v8sf v;
    std::memcpy(&v, x + i, sizeof v);
    v8sf t = th(0.7978845608f * (v + 0.044715f * v * v * v));
    v8sf r = 0.5f * v * (1.f + t);
    std::memcpy(y + i, &r, sizeof r);
  }
  for (; i < e; ++i) y[i] = gelu_scalar(x[i]);
}

inline bool have_mvec() { return vec_tanh().f16 || vec_tanh().f8; }

inline void hand_mvec(const float* x, float* y, std::int64_t n) {
  const VecTanh& v = vec_tanh();
  parallel(n, [=](std::int64_t b, std::int64_t e) {
    if (v.f16) gelu_mvec16(x, y, b, e, v.f16);
    else gelu_mvec8(x, y, b, e, v.f8);
  });
}

inline void triad(float* a, const float* b, const float* c, float s, std::int64_t n) {
  parallel(n, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
  });
}

}  // namespace
