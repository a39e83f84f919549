// SGEMM: kiln::matmul against LibTorch's mm and OpenBLAS's cblas_sgemm in
// the same run, and all against the machine's FP32 FMA peak measured here by
// a register-resident FMA loop. Built only where LibTorch and OpenBLAS are
// found (bench/CMakeLists.txt). Rows and checks: workload.h.
//
//   fma_peak/t<T>/fma_loop            FMA peak on T cores (AVX-512 or AVX2+FMA, chosen at run time)
//   sgemm_<N>/t<T>/kiln_tier0|kiln_tier1|torch_mm|openblas
//                                     C = A B, N x N float32 row-major, N = 256 ... 2048
//
// kiln's rows pack B on every call, as the peers do (the cache of packed
// weights is off here). Run with OPENBLAS_CORETYPE unset: `OPENBLAS_CORETYPE=Haswell` (set on
// some machines) halves OpenBLAS's sgemm here; the program warns if it is set, and
// if OpenBLAS fell back to its generic kernels on a CPU it does not know
// (scripts/run-benches.sh then names the core).
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <kiln/kiln.h>

#include "bench_util.h"
#include "peers/torch_peer.h"
#include "workload.h"

namespace {

// ---- the FMA peak -----------------------------------------------------------------

typedef float v16sf __attribute__((vector_size(64)));
typedef float v8sf __attribute__((vector_size(32)));

// acc = acc * m + a in `Acc` independent registers; the compiler contracts
// each update into one vfmadd (GNU C++ default -ffp-contract=fast). Acc must
// exceed latency x FMA ports (4 x 2) and leave room for m and a in the
// register file: 16 chains of ymm spilled with AVX2's 16 registers and
// measured half the peak (54 GFLOP/s at one thread, where sgemm 512 ran 94).
constexpr int kChainsAvx512 = 16;  // of 32 zmm
constexpr int kChainsAvx2 = 12;    // of 16 ymm

template <class V, int Acc>
__attribute__((always_inline)) inline float fma_chains(std::int64_t iters, float seed) {
  V acc[Acc];
  for (int j = 0; j < Acc; ++j) acc[j] = V{} + (seed + static_cast<float>(j));
  const V m = V{} + 0.9999999f, a = V{} + 1e-7f;
  for (std::int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < Acc; ++j) acc[j] = acc[j] * m + a;
  }
  V s = V{};
  for (int j = 0; j < Acc; ++j) s += acc[j];
  float r = 0;
  for (std::size_t l = 0; l < sizeof(V) / sizeof(float); ++l) r += s[l];
  return r;
}

__attribute__((target("avx512f"), noinline)) float fma_avx512(std::int64_t iters, float seed) {
  return fma_chains<v16sf, kChainsAvx512>(iters, seed);
}
__attribute__((target("avx2,fma"), noinline)) float fma_avx2(std::int64_t iters, float seed) {
  return fma_chains<v8sf, kChainsAvx2>(iters, seed);
}

struct Isa {
  bool avx512 = false, avx2 = false;
  int lanes = 0, chains = 0;
  const char* name = "none";
};

const Isa& isa() {
  static const Isa i = [] {
    Isa r;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) r = {true, false, 16, kChainsAvx512, "avx512f"};
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) r = {false, true, 8, kChainsAvx2, "avx2+fma"};
    return r;
  }();
  return i;
}

// One FMA loop per thread, all at once.
void fma_loops(int threads, std::int64_t iters) {
  std::vector<std::thread> ts;
  std::vector<float> sink(threads);
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] { sink[t] = isa().avx512 ? fma_avx512(iters, float(t)) : fma_avx2(iters, float(t)); });
  for (auto& t : ts) t.join();
  benchmark::DoNotOptimize(sink.data());
}

constexpr std::int64_t kPeakIters = 2'000'000;

// The peak as a row per thread count: GFLOP/s is the FMA ceiling the GEMM
// rows of the same thread count are read against.
std::shared_ptr<Workload> fma_peak(int threads) {
  auto w = std::make_shared<Workload>();
  w->name = "fma_peak";
  w->impls.push_back({"fma_loop", Tier::none, [threads] { fma_loops(threads, kPeakIters); }, {}});
  w->flops = 2.0 * isa().chains * isa().lanes * static_cast<double>(kPeakIters) * threads;
  return w;
}

// ---- the GEMMs ---------------------------------------------------------------------

void openblas_sgemm(const float* a, const float* b, float* c, std::int64_t n) {
  const int ni = static_cast<int>(n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.f, a, ni, b, ni, 0.f, c, ni);
}

// Results are checked against OpenBLAS's within twice the classic bound on
// a length-K float dot product: |d| <= 2 K u (|A||B|)_ij, u = 2^-24.
Floats dot_bound(const Floats& a, const Floats& b, std::int64_t n) {
  Floats aa(a), ab(b), bound(n * n);
  for (float& v : aa) v = std::fabs(v);
  for (float& v : ab) v = std::fabs(v);
  openblas_sgemm(aa.data(), ab.data(), bound.data(), n);
  const float k = static_cast<float>(2.0 * double(n) * std::ldexp(1.0, -24));
  for (float& v : bound) v *= k;
  return bound;
}

struct Operands {
  Floats a, b, c;
};

std::shared_ptr<Workload> sgemm(std::int64_t n) {
  auto w = std::make_shared<Workload>();
  kiln::Tensor a = kiln::randn({n, n}), b = kiln::randn({n, n});
  auto v = std::make_shared<Operands>();
  v->a = a.to_vector<float>();
  v->b = b.to_vector<float>();
  v->c.assign(n * n, 0.f);
  w->name = "sgemm_" + std::to_string(n);
  w->impls = kiln_tiers([a, b] { return kiln::matmul(a, b); });
  w->impls.push_back(peer_impl("torch_mm", torch_peer::mm(v->a, v->b, n)));
  w->impls.push_back({"openblas", Tier::none, [v, n] { openblas_sgemm(v->a.data(), v->b.data(), v->c.data(), n); },
                      [v] { return v->c; }});
  w->reference = w->impls.size() - 1;
  w->tol = {0, 0, dot_bound(v->a, v->b, n)};
  w->flops = 2.0 * double(n) * double(n) * double(n);
  return w;
}

void register_all() {
  if (isa().lanes)
    for (int t : {1, 2}) add_rows(fma_peak(t), {t}, benchmark::kMillisecond);
  for (std::int64_t n : {256, 512, 1024, 2048}) add_rows(sgemm(n), {1, 2}, benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* ct = std::getenv("OPENBLAS_CORETYPE")) {
    std::fprintf(stderr, "gemm_bench: OPENBLAS_CORETYPE=%s is set: OpenBLAS runs that core's kernels (openblas_corename "
                 "below), slower ones if the core is older than this CPU; `make bench` sets it only where OpenBLAS "
                 "does not know the CPU's model\n", ct);
    benchmark::AddCustomContext("OPENBLAS_CORETYPE", ct);
  } else if (std::strcmp(openblas_get_corename(), "Prescott") == 0 && __builtin_cpu_supports("avx2")) {
    std::fprintf(stderr, "gemm_bench: warning: OpenBLAS does not know this CPU's model and runs its generic Prescott "
                 "(SSE3) kernels; `make bench` names the core of the CPU's vector ISA (OPENBLAS_CORETYPE)\n");
  }
  benchmark::AddCustomContext("openblas_corename", openblas_get_corename());
  benchmark::AddCustomContext("openblas_config", openblas_get_config());
  benchmark::AddCustomContext("torch", torch_peer::describe());
  benchmark::AddCustomContext("fma_isa", isa().name);
  g_peer_threads = torch_peer::set_threads;  // LibTorch's and OpenBLAS's
  // B is the same matrix every call: kiln would keep it packed
  // (KILN_PREPACK_MAX_BYTES) where the peers pack it each time. These rows
  // time the whole product, as the peers do it.
  kiln::set_prepack_max_bytes(0);
  register_all();
  return workload_main(argc, argv);
}
