// The heuristic's cache blocks (gemm_blocking.h), where a config leaves a
// block at 0.
#include "jit/kernels/gemm_blocking.h"

#include <algorithm>

namespace kiln::jit::kernels {

// The column-block rule: 3 blocks of 512 columns left one of 2 threads a
// block behind; kiln tune's 2-thread winners took 2 blocks (nc=256) at 6 of
// its 9 products of 256-512 columns (make bench, eb85617), and with the
// rule the heuristic came within 1.00-1.07x of the tuned config at 6 of 7
// such products where it had been 1.00-1.14x (kiln tune --threads 2, four
// alternated runs; linear 32x512x512 went from 1.11-1.66x to 1.06-1.12x).
GemmBlocking blocking_for(const GemmConfig& config, GemmBlocking bl, std::int64_t k, std::int64_t n,
                          std::int64_t threads) {
  const std::int64_t isa_kc = bl.kc, isa_nc = bl.nc;
  if (config.kc > 0) {
    bl.kc = config.kc;
  } else {
    const std::int64_t most = isa_kc * 4 / 3, blocks = std::max<std::int64_t>(1, (k + most - 1) / most);
    bl.kc = std::max<std::int64_t>(1, (k + blocks - 1) / blocks);
  }
  bl.nc = config.nc > 0 ? config.nc : isa_kc * isa_nc / bl.kc;
  bl.nc = std::max<std::int64_t>(1, bl.nc / bl.nr) * bl.nr;
  if (const std::int64_t blocks = (n + bl.nc - 1) / bl.nc;
      config.nc == 0 && threads > 1 && blocks < 2 * threads && n >= threads * bl.nr)
    bl.nc = ((n + threads - 1) / threads + bl.nr - 1) / bl.nr * bl.nr;
  if (config.mc > 0) bl.mc = config.mc;
  return bl;
}

bool splits_depth(const GemmBlocking& serial, std::int64_t n, std::int64_t k, std::int64_t threads) {
  return threads > 1 && (n + serial.nc - 1) / serial.nc < threads && k >= threads * serial.kc;
}

}  // namespace kiln::jit::kernels
