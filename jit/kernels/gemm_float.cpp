// The packed floating-point GEMM (blocking explained in gemm_blocking.h).
// The macro-kernel is compiled three times, for AVX-512, AVX2+FMA and
// baseline x86-64, and the best one the CPU supports is picked at first use:
// the library is not built with -march=native.
#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "jit/tuning/gemm_tuning.h"
#include "profiler/enabled.h"

#include "jit/kernels/cpu_features.h"
#include "jit/kernels/gemm.h"
#include "jit/kernels/gemm_blocking.h"
#include "jit/kernels/gemm_few_rows.h"
#include "jit/kernels/gemm_pack.h"
#include "jit/kernels/gemm_prepacked.h"
#include "jit/kernels/gemm_tile.h"
#include "jit/kernels/gemm_microkernel.h"
#include "jit/kernels/parallel.h"
#include "jit/workspace.h"

namespace kiln::jit::kernels {
namespace {

// Micro-panels of rows handed to an epilogue at once: 8 × mr rows by nc
// columns (48 × 256 floats with AVX-512, 48 KiB) are still in L2 when it
// reads them back.
constexpr std::int64_t kEpiloguePanels = 8;

// One C block against packed panels: rows × cols of C, depth kc.
template <class T>
struct MacroTile {
  const T* a_panels;  // ceil(rows / mr) panels of kc × mr
  const T* b_panels;  // ceil(cols / nr) panels of kc × nr
  std::int64_t kc, rows, cols;
  T* c;
  std::int64_t rs_c, cs_c;
  bool accumulate;
  int mr, nr;                   // the register tile
  GemmMicroFn micro = nullptr;  // a generated micro-kernel of that tile, if not the hand-written one
};

// The block as register tiles: run(a panel, b panel, c, rows, cols) on each.
template <class T, class Run>
[[gnu::always_inline]] inline void macro_loop(const MacroTile<T>& t, int mr, int nr, Run&& run) {
  for (std::int64_t ir = 0; ir < t.rows; ir += mr) {
    const T* a = t.a_panels + ir * t.kc;
    const int rows = static_cast<int>(std::min<std::int64_t>(mr, t.rows - ir));
    for (std::int64_t jr = 0; jr < t.cols; jr += nr) {
      const int cols = static_cast<int>(std::min<std::int64_t>(nr, t.cols - jr));
      run(a, t.b_panels + jr * t.kc, t.c + ir * t.rs_c + jr * t.cs_c, rows, cols);
    }
  }
}

template <class MK, class T>
[[gnu::always_inline]] inline void macro_kernel(const MacroTile<T>& t) {
  // Inlined into the caller, whose target attribute gives the ISA.
  macro_loop(t, MK::kMR, MK::kNR, [&](const T* a, const T* b, T* c, int rows, int cols) __attribute__((always_inline)) {
    MK::run(t.kc, a, b, c, t.rs_c, t.cs_c, rows, cols, t.accumulate);
  });
}

template <class T>
void macro_generated(const MacroTile<T>& t) {
  macro_loop(t, t.mr, t.nr, [&](const T* a, const T* b, T* c, int rows, int cols) {
    t.micro(t.kc, a, b, c, t.rs_c, t.cs_c, rows, cols, t.accumulate);
  });
}

template <class T, RegisterTile Tile>
using MicroKernelFor = MicroKernel<T, Tile.vector_bytes / static_cast<int>(sizeof(T)), Tile.mr, Tile.nv>;

template <class T>
[[gnu::target("avx512f,fma")]] void macro_avx512(const MacroTile<T>& t) {
  macro_kernel<MicroKernelFor<T, kAvx512Tile>>(t);
}
template <class T>
[[gnu::target("avx2,fma")]] void macro_avx2(const MacroTile<T>& t) {
  macro_kernel<MicroKernelFor<T, kAvx2Tile>>(t);
}
template <class T>
void macro_baseline(const MacroTile<T>& t) {
  macro_kernel<MicroKernelFor<T, kBaselineTile>>(t);
}

template <class T>
struct GemmIsa {
  GemmBlocking blocking;
  void (*macro)(const MacroTile<T>&);
  GemmMicroFn micro = nullptr;  // for macro_generated
};

std::atomic<GemmVariant> forced_variant{GemmVariant::Best};

GemmVariant best_variant() {
  return cpu_has_avx512f_fma() ? GemmVariant::Avx512 : cpu_has_avx2_fma() ? GemmVariant::Avx2 : GemmVariant::Baseline;
}

}  // namespace

GemmVariant current_gemm_variant() {
  GemmVariant v = forced_variant.load(std::memory_order_relaxed);
  return v == GemmVariant::Best ? best_variant() : v;
}

namespace {

// A generated tile of the variant's vectors (AVX2 or AVX-512).
template <class T>
GemmTileSpec tile_spec(GemmVariant variant, int code) {
  return {static_cast<int>(sizeof(T)), variant == GemmVariant::Avx512 ? 64 : 32, tile_mr(code), tile_nv(code)};
}

// The micro-kernel `config` asks for: a generated tile (gemm_tile.h), which
// needs vectors of AVX2 or AVX-512, else the hand-written kernel of the
// current variant.
template <class T>
GemmIsa<T> isa_for(const GemmConfig& config) {
  const GemmVariant variant = current_gemm_variant();
  if (config.tile != 0 && variant != GemmVariant::Baseline) {
    const GemmTileSpec spec = tile_spec<T>(variant, config.tile);
    return {gemm_blocking<T>(RegisterTile{spec.vector_bytes, spec.mr, spec.nv}), &macro_generated<T>,
            generated_gemm_tile(spec)};
  }
  switch (variant) {
    case GemmVariant::Avx512: return {gemm_blocking<T>(kAvx512Tile), &macro_avx512<T>};
    case GemmVariant::Avx2: return {gemm_blocking<T>(kAvx2Tile), &macro_avx2<T>};
    default: return {gemm_blocking<T>(kBaselineTile), &macro_baseline<T>};
  }
}

// Packing on demand: the panels of A and B are packed in units of
// kClaimPanels, each by the first task that needs it, and a task waits for
// the units it needs that another task claimed. The claimant is running and
// packing waits for nothing, so the wait always ends. This makes one
// parallel region per block of C, where packing A, packing B and
// multiplying were three, and spreads the packing over the threads as the
// tasks come (128x512x512 at 2 threads: B was 3 blocks on 2 threads).
constexpr std::int64_t kClaimPanels = 8;

class PackClaims {
 public:
  // Up to kInlineUnits on the stack: no allocation for most products.
  explicit PackClaims(std::int64_t units)
      : units_(units),
        heap_(units > kInlineUnits ? std::make_unique<std::atomic<std::uint8_t>[]>(static_cast<std::size_t>(units))
                                   : nullptr),
        state_(heap_ ? heap_.get() : inline_) {}
  PackClaims(const PackClaims&) = delete;
  PackClaims& operator=(const PackClaims&) = delete;

  /// Outside any parallel region: every unit unpacked again.
  void reset() {
    for (std::int64_t u = 0; u < units_; ++u) state_[u].store(kUnpacked, std::memory_order_relaxed);
  }

  /// Packs (pack(unit)) each unit of [first, last) no task has claimed, then
  /// waits until the others are packed.
  template <class Pack>
  void ensure(std::int64_t first, std::int64_t last, Pack&& pack) {
    for (std::int64_t u = first; u < last; ++u) {
      std::uint8_t expected = kUnpacked;
      if (state_[u].load(std::memory_order_relaxed) != kUnpacked ||
          !state_[u].compare_exchange_strong(expected, kPacking, std::memory_order_relaxed))
        continue;
      pack(u);
      state_[u].store(kPacked, std::memory_order_release);
    }
    for (std::int64_t u = first; u < last; ++u)
      while (state_[u].load(std::memory_order_acquire) != kPacked) __builtin_ia32_pause();
  }

 private:
  static constexpr std::uint8_t kUnpacked = 0, kPacking = 1, kPacked = 2;
  static constexpr std::int64_t kInlineUnits = 64;
  std::int64_t units_;
  std::atomic<std::uint8_t> inline_[kInlineUnits] = {};
  std::unique_ptr<std::atomic<std::uint8_t>[]> heap_;
  std::atomic<std::uint8_t>* state_;
};

std::int64_t claim_units(std::int64_t panels) { return (panels + kClaimPanels - 1) / kClaimPanels; }

template <class T>
void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                 MatrixRef<T> c, const GemmEpilogue* epilogue, const GemmConfig& config, const ContentTag& b_content,
                 std::int64_t threads);

// C = the sum over `parts` of A[:, depth part] · B[depth part, :], each
// part on one thread into its own buffer (the first into C), whole depth
// blocks each; summed in part order, then the epilogue on all of C.
template <class T>
void gemm_depth_parts(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                      MatrixRef<T> c, const GemmEpilogue* epilogue, const GemmConfig& config,
                      const ContentTag& b_content, std::int64_t kc, std::int64_t parts) {
  const std::int64_t blocks = (k + kc - 1) / kc;
  auto first_depth = [&](std::int64_t part) { return std::min(k, part * blocks / parts * kc); };
  Workspace partials(static_cast<std::size_t>((parts - 1) * m * n) * sizeof(T));
  parallel_ranges(parts, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t part = begin; part < end; ++part) {
      const std::int64_t pc = first_depth(part), depth = first_depth(part + 1) - pc;
      const MatrixRef<T> out = part == 0 ? c : MatrixRef<T>{partials.as<T>() + (part - 1) * m * n, n, 1};
      ContentTag tag = b_content;
      if (tag.known()) tag.offset += pc * b.row_stride;  // the part's rows of B: bytes of their own
      gemm_packed(m, n, depth, MatrixRef<const T>{&a.at(0, pc), a.row_stride, a.col_stride},
                  MatrixRef<const T>{&b.at(pc, 0), b.row_stride, b.col_stride}, out, nullptr, config, tag, 1);
    }
  });
  for (std::int64_t part = 1; part < parts; ++part) {
    const T* sum = partials.as<T>() + (part - 1) * m * n;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c.at(i, j) += sum[i * n + j];
  }
  if (epilogue) epilogue->fn(epilogue->context, 0, m, 0, n);
}

// `threads` > 1: the product is split over that many kernel threads.
template <class T>
void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                 MatrixRef<T> c, const GemmEpilogue* epilogue, const GemmConfig& config, const ContentTag& b_content,
                 std::int64_t threads) {
  const GemmIsa<T> isa = isa_for<T>(config);
  const bool parallel = threads > 1;
  if (const GemmBlocking serial = blocking_for(config, isa.blocking, k, n, 1); splits_depth(serial, n, k, threads))
    return gemm_depth_parts(m, n, k, a, b, c, epilogue, config, b_content, serial.kc, threads);
  const GemmBlocking bl = blocking_for(config, isa.blocking, k, n, threads);
  // B^T as rows: row j of the transposed block is column j of B.
  const MatrixRef<const T> bt{b.data, b.col_stride, b.row_stride};
  auto pack_b = [&](T* dst, std::int64_t pc, std::int64_t kc, std::int64_t jc, std::int64_t nc, std::int64_t first,
                    std::int64_t end) {
    const MatrixRef<const T> block{&bt.at(jc, pc), bt.row_stride, bt.col_stride};
    pack_panels(dst, block, nc, kc, bl.nr, first, end);
  };

  const std::int64_t mc_max = std::min(bl.mc, m), kc_max = std::min(bl.kc, k);
  const std::int64_t col_blocks = (n + bl.nc - 1) / bl.nc;
  const std::int64_t b_block_panels = (std::min(bl.nc, n) + bl.nr - 1) / bl.nr;
  const std::int64_t b_block_elems = (b_block_panels + 1) * bl.nr * kc_max;
  const std::int64_t b_block_units = claim_units(b_block_panels);
  // All of B packed, depth block after depth block, when an earlier call
  // read the same bytes (a weight): its panels are read, not packed again.
  const std::int64_t depth_blocks = (k + bl.kc - 1) / bl.kc;
  const std::shared_ptr<const Workspace> prepacked =
      !b_content.known()
          ? nullptr
          : prepacked_b({b_content, b.row_stride, b.col_stride, k, n, bl.kc, bl.nc, bl.nr, static_cast<int>(sizeof(T))},
                        static_cast<std::size_t>(depth_blocks * col_blocks * b_block_elems) * sizeof(T),
                        [&](void* panels) {
                          parallel_ranges(depth_blocks * col_blocks, 1, [&](std::int64_t begin, std::int64_t end) {
                            for (std::int64_t unit = begin; unit < end; ++unit) {
                              const std::int64_t pc = unit / col_blocks * bl.kc, jc = unit % col_blocks * bl.nc;
                              const std::int64_t nc = std::min(bl.nc, n - jc);
                              pack_b(static_cast<T*>(panels) + unit * b_block_elems, pc, std::min(bl.kc, k - pc), jc,
                                     nc, 0, (nc + bl.nr - 1) / bl.nr);
                            }
                          });
                        });
  const bool pack_b_here = !prepacked;
  Workspace a_pack(static_cast<std::size_t>((mc_max + bl.mr) * kc_max) * sizeof(T));
  Workspace b_shared(pack_b_here && config.shared_b ? static_cast<std::size_t>(col_blocks * b_block_elems) * sizeof(T)
                                                    : 0);
  PackClaims a_claims(claim_units((mc_max + bl.mr - 1) / bl.mr));
  PackClaims b_claims(pack_b_here && config.shared_b ? col_blocks * b_block_units : 0);
  for (std::int64_t pc = 0; pc < k; pc += bl.kc) {
    const std::int64_t kc = std::min(bl.kc, k - pc);
    b_claims.reset();
    for (std::int64_t ic = 0; ic < m; ic += bl.mc) {
      const std::int64_t mc = std::min(bl.mc, m - ic);
      const std::int64_t a_panels = (mc + bl.mr - 1) / bl.mr;
      // A block: rows ic.., depth pc..; shared by every task below.
      const MatrixRef<const T> a_block{&a.at(ic, pc), a.row_stride, a.col_stride};
      a_claims.reset();
      // Tasks: column blocks of nc, split by rows too when there are few.
      const std::int64_t wanted_tasks = std::max<std::int64_t>(1, config.tasks_per_thread) * threads;
      const std::int64_t row_splits = std::clamp<std::int64_t>((wanted_tasks + col_blocks - 1) / col_blocks, 1, a_panels);
      const std::int64_t panels_per_split = (a_panels + row_splits - 1) / row_splits;
      const std::int64_t tasks = col_blocks * row_splits;
      parallel_ranges(tasks, parallel ? 1 : tasks, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t task = begin; task < end; ++task) {
          const std::int64_t block = task / row_splits, jc = block * bl.nc, nc = std::min(bl.nc, n - jc);
          const std::int64_t first_panel = (task % row_splits) * panels_per_split;
          if (first_panel >= a_panels) continue;
          const std::int64_t end_panel = std::min(a_panels, first_panel + panels_per_split);
          const std::int64_t first = first_panel * bl.mr, rows = std::min(mc, end_panel * bl.mr) - first;
          a_claims.ensure(first_panel / kClaimPanels, claim_units(end_panel), [&](std::int64_t unit) {
            pack_panels(a_pack.as<T>(), a_block, mc, kc, bl.mr, unit * kClaimPanels,
                        std::min(a_panels, (unit + 1) * kClaimPanels));
          });
          const std::int64_t panels = (nc + bl.nr - 1) / bl.nr;
          const bool own_b = pack_b_here && !config.shared_b;
          Workspace b_own(own_b ? static_cast<std::size_t>((panels + 1) * bl.nr * kc) * sizeof(T) : 0);
          T* const b_panels = !pack_b_here ? prepacked->as<T>() + (pc / bl.kc * col_blocks + block) * b_block_elems
                              : own_b      ? b_own.as<T>()
                                           : b_shared.as<T>() + block * b_block_elems;
          if (own_b)
            pack_b(b_panels, pc, kc, jc, nc, 0, panels);
          else if (pack_b_here)
            b_claims.ensure(block * b_block_units, block * b_block_units + claim_units(panels), [&](std::int64_t unit) {
              const std::int64_t local = unit - block * b_block_units;
              pack_b(b_panels, pc, kc, jc, nc, local * kClaimPanels, std::min(panels, (local + 1) * kClaimPanels));
            });
          MacroTile<T> tile{a_pack.as<T>() + first * kc, b_panels, kc, rows, nc, &c.at(ic + first, jc),
                            c.row_stride, c.col_stride, pc > 0, bl.mr, bl.nr, isa.micro};
          if (!epilogue || pc + kc < k) {
            isa.macro(tile);
            continue;
          }
          // The last rank-kc update: finish a few micro-panels, then hand them over.
          const std::int64_t step = kEpiloguePanels * bl.mr;
          for (std::int64_t r = 0; r < rows; r += step) {
            MacroTile<T> part = tile;
            part.a_panels += r * kc;
            part.rows = std::min(step, rows - r);
            part.c += r * c.row_stride;
            isa.macro(part);
            epilogue->fn(epilogue->context, ic + first + r, part.rows, jc, nc);
          }
        }
      });
    }
  }
}

template <class T>
void gemm_float(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                MatrixRef<T> c, const GemmEpilogue* epilogue, const GemmConfig& config,
                const ContentTag& b_content = {}) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c.at(i, j) = T(0);
    if (epilogue) epilogue->fn(epilogue->context, 0, m, 0, n);
    return;
  }
  if (config.few_rows && gemm_few_rows(m, n, k, a, b, c, epilogue, current_gemm_variant())) return;
  gemm_packed(m, n, k, a, b, c, epilogue, config, b_content,
              m * n * k >= kGemmParallelWork ? std::int64_t{loop_threads()} : std::int64_t{1});
}

template <class T>
GemmShape shape_of(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b) {
  return {static_cast<int>(sizeof(T)), a.col_stride == 1, b.col_stride == 1, m, n, k};
}

// With the tuned config of this product, else the heuristic's; the call
// reported to the profiler when the product is worth tuning.
template <class T>
void gemm_tuned(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                MatrixRef<T> c, const GemmEpilogue* epilogue, const ContentTag& b_content) {
  const GemmShape shape = shape_of(m, n, k, a, b);
  const std::string key = tuning::gemm_key(shape);
  const std::optional<tuning::TunedGemm> tuned = tuning::tuned_gemm_config(shape, key);
  GemmConfig config = tuned ? tuned->config : default_gemm_config(shape);
  // The heuristic's generated tile once it is compiled (in the background);
  // until then the hand-written one, which rounds alike, timed for the
  // tile's break-even.
  std::optional<GemmTileSpec> waiting;
  if (!tuned && config.tile != 0) {
    const GemmTileSpec spec = tile_spec<T>(current_gemm_variant(), config.tile);
    if (!ready_gemm_tile(spec)) {
      waiting = spec;
      config.tile = 0;
    }
  }
  const bool reports = tuning::reports_gemm_runs(shape);
  if (!reports && !waiting) return gemm_float(m, n, k, a, b, c, epilogue, config, b_content);
  const std::int64_t start = profiler::now_ns();
  gemm_float(m, n, k, a, b, c, epilogue, config, b_content);
  const std::int64_t ns = profiler::now_ns() - start;
  if (waiting) ran_without_tile(*waiting, ns);
  if (reports) tuning::note_gemm_run(shape, key, tuned ? tuned->source : "heuristic", ns);
}

}  // namespace

void set_gemm_variant(GemmVariant variant) { forced_variant.store(variant, std::memory_order_relaxed); }

namespace {

// The heuristic's register tile: the one that pads C least into
// micro-tiles (rows to mr, columns to the tile's width), a tile of fewer
// FMAs per load charged for them.
//
// AVX2 (rows only: both tiles are 2 vectors wide), measured with linear and
// row-major products of 512-784 x 512: 4x2, charged 4%, gained 6-14% at 16
// and 32 rows, and lost 1-5% at 12, 24 and 48 rows, where 6 divides the
// rows. The 6-row tile of float32 is the generated one too: against the
// hand-written 6x2 (same rounding) it ran 0.96-1.14x at one thread and
// 1.02-1.13x at two over nine products of 32-2048 rows (best of nine
// interleaved rounds each; 2048^3 level).
//
// AVX-512 (float32): 8x3 (48 columns, 11 loads per 24 FMAs against 10),
// charged 2%, against 6x4 (64 columns). Measured with the generated tiles
// in a tuning database (kiln::matmul, median of 300, three rounds): 32x512x512
// (nt) on 2 threads 87-97 us with 8x3 against 101-132 with the hand-written
// 6x4, and 138-140 against 135-154 on one; products of 48-1024 rows where
// the two pad alike ran within the noise of each other (the rule keeps
// 6x4 there); the generated 6x4 against the hand-written one: 0.96-1.10x
// at 64-128 rows by 512-784, within the noise at 256-1024. kiln tune's
// winners at 32 rows, and at 128 rows by 784 columns, were 8x3.
// float64 and other ISAs keep their hand-written tile.
int heuristic_tile(std::int64_t m, std::int64_t n, int element_bytes) {
  if (m <= kFewRows) return 0;
  auto padded = [](std::int64_t x, std::int64_t to) { return double((x + to - 1) / to * to); };
  switch (current_gemm_variant()) {
    case GemmVariant::Avx2: {
      const double six = padded(m, 6), four = padded(m, 4) / 0.96;
      if (four < six) return tile_code(4, 2);
      return element_bytes == 4 ? tile_code(6, 2) : 0;
    }
    case GemmVariant::Avx512: {
      if (element_bytes != 4) return 0;
      const double six_by_four = padded(m, 6) * padded(n, 64), eight_by_three = padded(m, 8) * padded(n, 48) / 0.98;
      return eight_by_three < six_by_four ? tile_code(8, 3) : tile_code(6, 4);
    }
    default: return 0;
  }
}

}  // namespace

GemmConfig default_gemm_config(const GemmShape& shape) {
  GemmConfig config;  // blocks shaped to the product (blocking_for)
  config.shared_b = true;
  config.few_rows = shape.m <= kFewRows || (shape.n <= kFewColumns && dots_layout(shape));
  config.tile = heuristic_tile(shape.m, shape.n, shape.element_bytes);
  return config;
}

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a, MatrixRef<const float> b,
          MatrixRef<float> c, const GemmEpilogue* epilogue, const ContentTag& b_content) {
  gemm_tuned(m, n, k, a, b, c, epilogue, b_content);
}
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a, MatrixRef<const double> b,
          MatrixRef<double> c, const GemmEpilogue* epilogue, const ContentTag& b_content) {
  gemm_tuned(m, n, k, a, b, c, epilogue, b_content);
}
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const float> a, MatrixRef<const float> b,
          MatrixRef<float> c, const GemmConfig& config, const GemmEpilogue* epilogue) {
  gemm_float(m, n, k, a, b, c, epilogue, config);
}
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixRef<const double> a, MatrixRef<const double> b,
          MatrixRef<double> c, const GemmConfig& config, const GemmEpilogue* epilogue) {
  gemm_float(m, n, k, a, b, c, epilogue, config);
}

}  // namespace kiln::jit::kernels
