// The register-tiled inner kernel of the packed GEMM, written once with GCC
// vector extensions and instantiated per ISA inside functions carrying a
// `target` attribute (gemm_float.cpp): always_inline, so its vector code is
// generated for the ISA of the function it is inlined into.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln::jit::kernels {

/// C[rows×cols] (+)= A panel · B panel, for a tile of at most MR × NR with
/// NR = Lanes * NV. `a`: kc steps of MR values (zero-padded rows); `b`: kc
/// steps of NR values (zero-padded columns).
template <class T, int Lanes, int MR, int NV>
struct MicroKernel {
  static constexpr int kMR = MR;
  static constexpr int kNR = Lanes * NV;
  typedef T Vec __attribute__((vector_size(Lanes * sizeof(T))));

  [[gnu::always_inline]] static inline void run(std::int64_t kc, const T* a, const T* b, T* c,
                                                std::int64_t rs_c, std::int64_t cs_c, int rows, int cols,
                                                bool accumulate) {
    Vec acc[MR][NV] = {};
    // The C tile is read (and written) only after the k loop: fetch it now.
    if (cs_c == 1)
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < NV; ++j) __builtin_prefetch(c + i * rs_c + j * Lanes, 1);
    for (std::int64_t k = 0; k < kc; ++k) {
      Vec bv[NV];
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) std::memcpy(&bv[j], b + k * kNR + j * Lanes, sizeof(Vec));
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
        const T ai = a[k * MR + i];
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) acc[i][j] += ai * bv[j];
      }
    }
    if (rows == MR && cols == kNR && cs_c == 1) {
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
          T* p = c + i * rs_c + j * Lanes;
          Vec v = acc[i][j];
          if (accumulate) {
            Vec old;
            std::memcpy(&old, p, sizeof(Vec));
            v += old;
          }
          std::memcpy(p, &v, sizeof(Vec));
        }
      }
      return;
    }
    // Edge tile or strided C: through memory, element by element.
    T tile[MR * kNR];
    std::memcpy(tile, acc, sizeof(tile));
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        T& dst = c[i * rs_c + j * cs_c];
        dst = accumulate ? dst + tile[i * kNR + j] : tile[i * kNR + j];
      }
  }
};

}  // namespace kiln::jit::kernels
