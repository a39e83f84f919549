// Reductions on tier 1 (row and partial kernels fused with their producers
// and consumers) against tier 0 (op by op) and against hand-written loops
// over the same data, in one run:
//
//   BM_Sum16M/...        x.sum() over 16M float32 (sums in double on every side)
//   BM_Softmax/...       x.softmax(1) over 4096 x 1024 float32
//   BM_LayerNorm/...     (x - mean) * rsqrt(var + eps) * w + b over the last dim of 4096 x 1024
//
// The hand loops are what one would write in C++ for exactly one of these
// computations: parallel over rows (or chunks) with TBB, one read of each
// row from memory (its later passes hit the cache), AVX-512 with glibc's
// libmvec expf where the CPU has it (scalar code otherwise). Before any
// timing, tier 1 and the hand loops are checked against tier 0, and tier 1
// must run each workload as ONE compiled kernel.
#include <benchmark/benchmark.h>

#include <dlfcn.h>
#include <immintrin.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"

namespace {

constexpr std::int64_t kSum = 16 << 20;
constexpr std::int64_t kRows = 4096, kCols = 1024;
constexpr float kEps = 1e-5f;

// ---- the three workloads on kiln -------------------------------------------

struct Data {
  kiln::Tensor flat, x, w, b;
};

Data& data() {
  static Data* d = [] {
    auto* p = new Data{kiln::randn({kSum}), kiln::randn({kRows, kCols}), kiln::randn({kCols}), kiln::randn({kCols})};
    kiln::sync();
    return p;
  }();
  return *d;
}

kiln::Tensor sum_kiln() { return data().flat.sum(); }
kiln::Tensor softmax_kiln() { return data().x.softmax(1); }
kiln::Tensor layer_norm_kiln() {
  const kiln::Tensor& x = data().x;
  const kiln::Tensor mean = x.mean({-1}, true);
  const kiln::Tensor var = ((x - mean) * (x - mean)).mean({-1}, true);
  return (x - mean) * (var + kEps).rsqrt() * data().w + data().b;
}

// ---- hand-written loops -----------------------------------------------------

// GCC 12's AVX-512 headers build some results from _mm512_undefined_*(),
// which its own uninitialized-use warnings flag.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

using Exp16 = __m512 (*)(__m512);

// glibc's 16-wide expf, if this CPU and libc have it.
Exp16 vector_expf() {
  static Exp16 f = [] {
    if (!__builtin_cpu_supports("avx512f")) return Exp16{nullptr};
    void* lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? reinterpret_cast<Exp16>(dlsym(lib, "_ZGVeN16v_expf")) : Exp16{nullptr};
  }();
  return f;
}

__attribute__((target("avx512f"))) double sum_avx512(const float* p, std::int64_t n) {
  __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd(), a2 = _mm512_setzero_pd(), a3 = _mm512_setzero_pd();
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(p + i)));
    a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 8)));
    a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 16)));
    a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm256_loadu_ps(p + i + 24)));
  }
  double s = _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
  for (; i < n; ++i) s += p[i];
  return s;
}

double sum_scalar(const float* p, std::int64_t n) {
  double s[4] = {};
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; ++l) s[l] += p[i + l];
  for (; i < n; ++i) s[0] += p[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

float hand_sum(const float* p) {
  const bool avx = __builtin_cpu_supports("avx512f");
  return static_cast<float>(tbb::parallel_reduce(
      tbb::blocked_range<std::int64_t>(0, kSum, 1 << 16), 0.0,
      [&](const tbb::blocked_range<std::int64_t>& r, double acc) {
        return acc + (avx ? sum_avx512 : sum_scalar)(p + r.begin(), r.end() - r.begin());
      },
      [](double a, double b) { return a + b; }));
}

__attribute__((target("avx512f"))) void softmax_row_avx512(const float* x, float* y, Exp16 exp16) {
  __m512 m = _mm512_set1_ps(-INFINITY);
  for (std::int64_t j = 0; j < kCols; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(x + j));
  const __m512 mx = _mm512_set1_ps(_mm512_reduce_max_ps(m));
  __m512 s = _mm512_setzero_ps();
  for (std::int64_t j = 0; j < kCols; j += 16) s = _mm512_add_ps(s, exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), mx)));
  const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(s));
  for (std::int64_t j = 0; j < kCols; j += 16)
    _mm512_storeu_ps(y + j, _mm512_mul_ps(exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), mx)), inv));
}

void softmax_row_scalar(const float* x, float* y) {
  float m = -INFINITY;
  for (std::int64_t j = 0; j < kCols; ++j) m = std::max(m, x[j]);
  float s = 0;
  for (std::int64_t j = 0; j < kCols; ++j) s += std::exp(x[j] - m);
  for (std::int64_t j = 0; j < kCols; ++j) y[j] = std::exp(x[j] - m) / s;
}

void hand_softmax(const float* x, float* y) {
  const Exp16 exp16 = vector_expf();
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, kRows, 16), [&](const tbb::blocked_range<std::int64_t>& r) {
    for (std::int64_t i = r.begin(); i < r.end(); ++i) {
      if (exp16) softmax_row_avx512(x + i * kCols, y + i * kCols, exp16);
      else softmax_row_scalar(x + i * kCols, y + i * kCols);
    }
  });
}

__attribute__((target("avx512f"))) void layer_norm_row_avx512(const float* x, const float* w, const float* b, float* y) {
  __m512 s = _mm512_setzero_ps();
  for (std::int64_t j = 0; j < kCols; j += 16) s = _mm512_add_ps(s, _mm512_loadu_ps(x + j));
  const __m512 mean = _mm512_set1_ps(_mm512_reduce_add_ps(s) / kCols);
  __m512 q = _mm512_setzero_ps();
  for (std::int64_t j = 0; j < kCols; j += 16) {
    const __m512 c = _mm512_sub_ps(_mm512_loadu_ps(x + j), mean);
    q = _mm512_fmadd_ps(c, c, q);
  }
  const __m512 r = _mm512_set1_ps(1.0f / std::sqrt(_mm512_reduce_add_ps(q) / kCols + kEps));
  for (std::int64_t j = 0; j < kCols; j += 16) {
    const __m512 c = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + j), mean), r);
    _mm512_storeu_ps(y + j, _mm512_fmadd_ps(c, _mm512_loadu_ps(w + j), _mm512_loadu_ps(b + j)));
  }
}

void layer_norm_row_scalar(const float* x, const float* w, const float* b, float* y) {
  float s = 0, q = 0;
  for (std::int64_t j = 0; j < kCols; ++j) s += x[j];
  const float mean = s / kCols;
  for (std::int64_t j = 0; j < kCols; ++j) q += (x[j] - mean) * (x[j] - mean);
  const float r = 1.0f / std::sqrt(q / kCols + kEps);
  for (std::int64_t j = 0; j < kCols; ++j) y[j] = (x[j] - mean) * r * w[j] + b[j];
}

void hand_layer_norm(const float* x, const float* w, const float* b, float* y) {
  const bool avx = __builtin_cpu_supports("avx512f");
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, kRows, 16), [&](const tbb::blocked_range<std::int64_t>& r) {
    for (std::int64_t i = r.begin(); i < r.end(); ++i)
      (avx ? layer_norm_row_avx512 : layer_norm_row_scalar)(x + i * kCols, w, b, y + i * kCols);
  });
}

#pragma GCC diagnostic pop

// ---- checks -------------------------------------------------------------------

// |got - want| <= rel * (|want| + floor): the floor is where values cancel
// (a layer norm's outputs near 0 carry the error of its O(1) terms).
void check_close(const std::vector<float>& got, const std::vector<float>& want, double rel, double floor,
                 const std::string& what) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i]));
    worst = std::max(worst, d / (std::fabs(double(want[i])) + floor));
    if (!(d <= rel * (std::fabs(double(want[i])) + floor)))
      die(what + " differs from tier 0 at element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " +
          std::to_string(want[i]));
  }
  std::fprintf(stderr, "check %-24s vs tier 0: max err / (|tier 0| + %g) = %.3g\n", what.c_str(), floor, worst);
}

// Tier 1 warmed up to its steady state (compiled, then past the O3 upgrade),
// checked to run `f` as one compiled kernel and against tier 0.
void warm_and_check(kiln::Tensor (*f)(), const std::vector<float>& hand, double floor, const char* name) {
  kiln::jit::set_enabled(false);
  const std::vector<float> t0 = f().to_vector<float>();
  kiln::jit::set_enabled(true);
  for (int i = 0; i < 100; ++i) f().to_vector<float>();
  kiln::jit::wait_for_compiles();
  const kiln::JitStats before = kiln::stats().jit;
  const std::vector<float> t1 = f().to_vector<float>();
  const kiln::JitStats after = kiln::stats().jit;
  if (after.group_runs_compiled - before.group_runs_compiled != 1 || after.group_runs_interpreted != before.group_runs_interpreted)
    die(std::string(name) + ": tier 1 did not run as one compiled kernel");
  check_close(t1, t0, 1e-5, floor, std::string(name) + " tier 1");
  check_close(hand, t0, 1e-5, floor, std::string(name) + " hand loop");
}

struct Checked {
  std::vector<float> y;
  Checked() : y(kRows * kCols) {
    Data& d = data();
    std::vector<float> s{hand_sum(d.flat.data_ptr<float>())};
    warm_and_check(sum_kiln, s, 0, "sum");
    hand_softmax(d.x.data_ptr<float>(), y.data());
    warm_and_check(softmax_kiln, y, 1e-3, "softmax");
    hand_layer_norm(d.x.data_ptr<float>(), d.w.data_ptr<float>(), d.b.data_ptr<float>(), y.data());
    warm_and_check(layer_norm_kiln, y, 1, "layer_norm");
  }
};

Checked& checked() {
  static Checked* c = new Checked;
  return *c;
}

// ---- benchmarks -----------------------------------------------------------------

template <kiln::Tensor (*F)(), bool Jit>
void BM_Kiln(benchmark::State& state) {
  checked();
  kiln::jit::set_enabled(Jit);
  for (auto _ : state) benchmark::DoNotOptimize(F().data_ptr<float>());
  kiln::jit::set_enabled(true);
}

void BM_SumHand(benchmark::State& state) {
  checked();
  for (auto _ : state) benchmark::DoNotOptimize(hand_sum(data().flat.data_ptr<float>()));
}
void BM_SoftmaxHand(benchmark::State& state) {
  float* y = checked().y.data();
  for (auto _ : state) hand_softmax(data().x.data_ptr<float>(), y);
}
void BM_LayerNormHand(benchmark::State& state) {
  float* y = checked().y.data();
  Data& d = data();
  for (auto _ : state) hand_layer_norm(d.x.data_ptr<float>(), d.w.data_ptr<float>(), d.b.data_ptr<float>(), y);
}

#define KILN_BENCH(fn, name) BENCHMARK(fn)->Name(name)->Unit(benchmark::kMillisecond)->UseRealTime()
KILN_BENCH((BM_Kiln<sum_kiln, false>), "BM_Sum16M/kiln_tier0");
KILN_BENCH((BM_Kiln<sum_kiln, true>), "BM_Sum16M/kiln_tier1");
KILN_BENCH(BM_SumHand, "BM_Sum16M/hand_loop");
KILN_BENCH((BM_Kiln<softmax_kiln, false>), "BM_Softmax4096x1024/kiln_tier0");
KILN_BENCH((BM_Kiln<softmax_kiln, true>), "BM_Softmax4096x1024/kiln_tier1");
KILN_BENCH(BM_SoftmaxHand, "BM_Softmax4096x1024/hand_loop");
KILN_BENCH((BM_Kiln<layer_norm_kiln, false>), "BM_LayerNorm4096x1024/kiln_tier0");
KILN_BENCH((BM_Kiln<layer_norm_kiln, true>), "BM_LayerNorm4096x1024/kiln_tier1");
KILN_BENCH(BM_LayerNormHand, "BM_LayerNorm4096x1024/hand_loop");

}  // namespace
