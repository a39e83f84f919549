#include "tools/tune/peer.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace kiln::tools {
namespace {

// cblas.h's values, so that no BLAS header is needed to build.
enum : int { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                       int);
using SetThreads = void (*)(int);
using CoreName = char* (*)();

struct OpenBlas {
  Sgemm sgemm = nullptr;
  SetThreads set_threads = nullptr;
  CoreName core_name = nullptr;
};

const OpenBlas& openblas() {
  static const OpenBlas lib = [] {
    OpenBlas l;
    if (void* h = ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL)) {
      l.sgemm = reinterpret_cast<Sgemm>(::dlsym(h, "cblas_sgemm"));
      l.set_threads = reinterpret_cast<SetThreads>(::dlsym(h, "openblas_set_num_threads"));
      l.core_name = reinterpret_cast<CoreName>(::dlsym(h, "openblas_get_corename"));
    }
    return l;
  }();
  return lib;
}

}  // namespace

std::optional<double> openblas_ms(const kiln::tune::Target& target, int threads) {
  if (target.shape.size() != 3) return std::nullopt;  // not a GEMM: OpenBLAS has no peer
  const OpenBlas& lib = openblas();
  if (!lib.sgemm) return std::nullopt;
  if (lib.set_threads) lib.set_threads(threads);
  const int m = static_cast<int>(target.shape[0]), k = static_cast<int>(target.shape[1]),
            n = static_cast<int>(target.shape[2]);
  const bool a_t = target.kernel == "matmul_tn", b_t = target.kernel == "linear";
  std::vector<float> a(std::size_t(m) * k, 0.5f), b(std::size_t(k) * n, 0.25f), c(std::size_t(m) * n);
  auto run = [&] {
    lib.sgemm(kRowMajor, a_t ? kTrans : kNoTrans, b_t ? kTrans : kNoTrans, m, n, k, 1.0f, a.data(), a_t ? m : k,
              b.data(), b_t ? k : n, 0.0f, c.data(), n);
  };
  run();
  std::vector<double> ms;
  const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (ms.size() < 5 || (ms.size() < 50 && std::chrono::steady_clock::now() < stop)) {
    const auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::string openblas_core() {
  const OpenBlas& lib = openblas();
  const char* name = lib.core_name ? lib.core_name() : nullptr;
  return name ? name : "";
}

}  // namespace kiln::tools
