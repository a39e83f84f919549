#include "jit/tuning/gemm_tuning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include "autotune/measure.h"
#include "autotune/shape_bucket.h"
#include "jit/kernels/gemm_few_rows.h"
#include "jit/kernels/gemm_tile.h"
#include "jit/kernels/parallel.h"
#include "jit/threads.h"
#include "jit/tuning/background_tuning.h"
#include "jit/tuning/settle.h"
#include "jit/tuning/tuning_store.h"
#include "profiler/enabled.h"
#include "profiler/tunables.h"

namespace kiln::jit::tuning {
namespace {

using kernels::GemmConfig;
using kernels::GemmShape;

// The values of a block knob that differ for an extent: 0 (the heuristic's
// block), those below it and the first that covers it (every larger one
// runs the same).
std::vector<std::int64_t> blocks_for(std::int64_t extent, std::initializer_list<std::int64_t> candidates) {
  std::vector<std::int64_t> values{0};
  for (std::int64_t v : candidates) {
    values.push_back(v);
    if (v >= extent) break;
  }
  return values;
}

// The "tile" knob: 0, the hand-written micro-kernel, and generated tiles
// (kernels::tile_code) that fit the variant's registers: its own tile
// generated (so the two are measured against each other) and others. On
// the 2-core AVX2 machine 4x2 won at 16-32 rows by 6-14%; 8x1, 6x1 and 2x4
// lost everywhere (8x1 by half) and are not offered. None on the baseline
// variant, which has no generated tiles.
std::vector<std::int64_t> generated_tiles() {
  using kernels::tile_code;
  switch (kernels::current_gemm_variant()) {
    case kernels::GemmVariant::Avx2:
      return {0, tile_code(6, 2), tile_code(4, 2), tile_code(4, 3), tile_code(5, 2), tile_code(3, 3)};
    case kernels::GemmVariant::Avx512:
      return {0, tile_code(6, 4), tile_code(4, 4), tile_code(8, 3), tile_code(12, 2), tile_code(4, 6)};
    default: return {};
  }
}

bool parallel_product(const GemmShape& s) { return s.m * s.n * s.k >= kernels::kGemmParallelWork && num_threads() > 1; }

template <class T>
struct Buffers {
  std::vector<T> a, b, c, reference;
  kernels::MatrixRef<const T> ar, br;
  kernels::MatrixRef<T> cr;

  explicit Buffers(const GemmShape& s) : a(s.m * s.k), b(s.k * s.n), c(s.m * s.n), reference(s.m * s.n) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (T& v : a) v = static_cast<T>(uniform(rng));
    for (T& v : b) v = static_cast<T>(uniform(rng));
    ar = s.a_rows_contiguous ? kernels::MatrixRef<const T>{a.data(), s.k, 1}
                             : kernels::MatrixRef<const T>{a.data(), 1, s.m};
    br = s.b_rows_contiguous ? kernels::MatrixRef<const T>{b.data(), s.n, 1}
                             : kernels::MatrixRef<const T>{b.data(), 1, s.k};
    cr = {c.data(), s.n, 1};
  }
};

// `config` as a point of `space`: the knobs the space lacks (they do not
// apply to the product) dropped.
autotune::Config within(const autotune::ConfigSpace& space, const autotune::Config& config) {
  autotune::Config point;
  for (const autotune::Knob& knob : space.knobs()) point[knob.name] = config.at(knob.name);
  return point;
}

template <class T>
GemmTuneResult tune(const GemmShape& shape, autotune::SearchOptions options) {
  GemmTuneResult result;
  result.key = gemm_key(shape);
  result.heuristic = kernels::default_gemm_config(shape);
  Buffers<T> buf(shape);
  auto run = [&](const GemmConfig& config) {
    kernels::gemm(shape.m, shape.n, shape.k, buf.ar, buf.br, buf.cr, config);
  };
  run(result.heuristic);
  buf.reference = buf.c;
  double largest = 0;
  for (T v : buf.reference) largest = std::max(largest, std::fabs(double(v)));
  // Summation order changes with kc: allow rounding of that size, no more.
  const double tolerance = (sizeof(T) == 4 ? 1e-5 : 1e-13) * std::sqrt(double(shape.k)) * std::max(largest, 1.0);
  auto matches = [&] {
    for (std::size_t i = 0; i < buf.c.size(); ++i)
      if (!(std::fabs(double(buf.c[i]) - double(buf.reference[i])) <= tolerance)) return false;
    return true;
  };
  const autotune::MeasureFn measure = [&](const autotune::Config& candidate, int repetitions) -> std::optional<double> {
    const GemmConfig config = from_config(candidate);
    std::fill(buf.c.begin(), buf.c.end(), T(0));
    run(config);
    if (!matches()) return std::nullopt;
    return autotune::measure([&] { run(config); }, {1, repetitions, 2.0}).median_seconds;
  };
  const autotune::ConfigSpace space = gemm_space(shape);
  options.seeds.insert(options.seeds.begin(), within(space, to_config(result.heuristic)));
  result.search = autotune::search(space, measure, options);
  result.best = result.search.best ? from_config(*result.search.best) : result.heuristic;
  result.heuristic_point = within(space, to_config(result.heuristic));
  result.best_point = within(space, to_config(result.best));
  if (options.cancel && options.cancel->load()) return result;  // the user wants out: no more timing, no store

  settle(result, result.heuristic, run);
  return result;
}

struct OnlineKey {
  std::uint64_t calls = 0;
  bool requested = false;
  std::optional<GemmConfig> winner;
};

// Configs looked up so far, by key. Dropped when this process changed the
// database, and once a second, so a running program picks up what a `kiln
// tune` in another process stored (a lookup costs a stat() of the file).
struct Memo {
  std::mutex mutex;
  std::uint64_t generation = ~std::uint64_t{0};
  std::chrono::steady_clock::time_point filled;
  std::unordered_map<std::string, std::optional<GemmConfig>> configs;
  std::unordered_map<std::string, OnlineKey> online;  // kept: a key is tuned online once per process
};

// Online tuning (KILN_AUTOTUNE=online): a product run this many times, and
// large enough that a better config saves more than the lookup costs, is
// tuned in the background unless the database has it.
constexpr std::uint64_t kOnlineAfterCalls = 32;
constexpr std::int64_t kOnlineWork = std::int64_t{1} << 20;

Memo& memo_instance() {
  static Memo& memo = *new Memo;  // never destroyed: gemm() may run while the process exits
  return memo;
}

void tune_online(const GemmShape& shape) {
  tune_in_background([shape] {
    const std::int64_t start = profiler::now_ns();
    autotune::SearchOptions options;
    options.budget_seconds = online_budget_seconds();
    const GemmTuneResult r = tune_gemm(shape, options);
    {
      // Used from the next call on, whether or not there is a database to keep it.
      Memo& memo = memo_instance();
      std::lock_guard lock(memo.mutex);
      memo.online[r.key].winner = r.best;
    }
    note_tuned(r.key, r.heuristic_seconds, r.best_seconds, start);
  });
}

}  // namespace

std::string gemm_key(const GemmShape& shape) {
  const std::int64_t extents[] = {shape.m, shape.k, shape.n};
  std::string key = shape.element_bytes == 4 ? "gemm/f32/" : "gemm/f64/";
  key += shape.a_rows_contiguous ? 'n' : 't';
  key += shape.b_rows_contiguous ? 'n' : 't';
  // The threads the product runs on: one inside a piece of a parallel loop
  // (a batch split by matrix), and tuned as such.
  key += "/t" + std::to_string(kernels::loop_threads()) + "/" + autotune::bucket_key(extents);
  return key;
}

autotune::ConfigSpace gemm_space(const GemmShape& exact) {
  // A function of the key: every product of a bucket gets the same space.
  GemmShape shape = exact;
  shape.m = autotune::bucket(exact.m);
  shape.n = autotune::bucket(exact.n);
  shape.k = autotune::bucket(exact.k);
  autotune::ConfigSpace space;
  space.add("kc", blocks_for(shape.k, {128, 192, 256, 384, 512, 768}));
  space.add("nc", blocks_for(shape.n, {64, 128, 192, 256, 384, 512, 768, 1024}));
  space.add("mc", blocks_for(shape.m, {48, 96, 144, 192, 288, 384, 768, 1536}));
  space.add("shared_b", {0, 1});
  if (parallel_product(shape)) space.add("tasks_per_thread", {1, 2, 4});
  if (shape.m <= kernels::kFewRowsTunable || (shape.n <= kernels::kFewColumnsTunable && kernels::dots_layout(shape)))
    space.add("few_rows", {0, 1});
  if (!generated_tiles().empty()) space.add("tile", generated_tiles());
  return space;
}

autotune::Config to_config(const GemmConfig& c) {
  return {{"kc", c.kc}, {"nc", c.nc}, {"mc", c.mc}, {"shared_b", c.shared_b}, {"tasks_per_thread", c.tasks_per_thread},
          {"few_rows", c.few_rows}, {"tile", c.tile}};
}

GemmConfig from_config(const autotune::Config& config) {
  GemmConfig c;
  auto get = [&](const char* name, std::int64_t fallback) {
    auto it = config.find(name);
    return it == config.end() ? fallback : it->second;
  };
  c.kc = get("kc", c.kc);
  c.nc = get("nc", c.nc);
  c.mc = get("mc", c.mc);
  c.shared_b = get("shared_b", c.shared_b) != 0;
  c.tasks_per_thread = static_cast<int>(get("tasks_per_thread", c.tasks_per_thread));
  c.few_rows = get("few_rows", c.few_rows) != 0;
  c.tile = static_cast<int>(get("tile", c.tile));
  return c;
}

std::string gemm_target(const GemmShape& shape) {
  if (shape.element_bytes != 4) return "";
  for (const GemmKernelName& kernel : kGemmKernelNames)
    if (kernel.a_rows_contiguous == shape.a_rows_contiguous && kernel.b_rows_contiguous == shape.b_rows_contiguous)
      return std::string(kernel.name) + " " + std::to_string(shape.m) + "x" + std::to_string(shape.k) + "x" +
             std::to_string(shape.n);
  return "";
}

bool reports_gemm_runs(const GemmShape& shape) {
  return profiler::enabled() && shape.m * shape.n * shape.k >= kernels::kGemmParallelWork;
}

void note_gemm_run(const GemmShape& shape, const std::string& key, const char* source, std::int64_t nanoseconds) {
  const std::string target = gemm_target(shape);
  profiler::note_tunable_run({.key = key,
                              .target = target,
                              .threads = static_cast<std::uint32_t>(kernels::loop_threads()),
                              .config = source,
                              .nanoseconds = nanoseconds});
}

std::optional<TunedGemm> tuned_gemm_config(const GemmShape& shape, const std::string& key) {
  const AutotuneMode mode = autotune_mode();
  if (mode == AutotuneMode::Off) return std::nullopt;
  Memo& memo = memo_instance();
  std::lock_guard lock(memo.mutex);
  if (mode == AutotuneMode::Online) {
    OnlineKey& online = memo.online[key];
    if (online.winner) return TunedGemm{*online.winner, "online"};
    if (!online.requested && ++online.calls >= kOnlineAfterCalls && shape.m * shape.n * shape.k >= kOnlineWork) {
      online.requested = true;
      tune_online(shape);
    }
  }
  const auto now = std::chrono::steady_clock::now();
  if (const std::uint64_t generation = tuning_generation();
      generation != memo.generation || now - memo.filled > std::chrono::seconds(1)) {
    memo.configs.clear();
    memo.generation = generation;
    memo.filled = now;
  }
  auto it = memo.configs.find(key);
  if (it == memo.configs.end()) {
    std::optional<GemmConfig> found;
    if (std::shared_ptr<autotune::TuningDb> db = tuning_db())
      if (std::optional<autotune::TuningEntry> entry = db->lookup(key))
        if (gemm_space(shape).contains(entry->config)) found = from_config(entry->config);  // else hand-edited or stale
    it = memo.configs.emplace(key, found).first;
  }
  if (!it->second) return std::nullopt;
  return TunedGemm{*it->second, "database"};
}

GemmTuneResult tune_gemm(const GemmShape& shape, autotune::SearchOptions options) {
  return shape.element_bytes == 4 ? tune<float>(shape, std::move(options)) : tune<double>(shape, std::move(options));
}

}  // namespace kiln::jit::tuning
