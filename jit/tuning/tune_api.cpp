// kiln::tune (include/kiln/tune.h): the public face of the tuner, over the
// kernel families of jit/tuning.
#include <kiln/tune.h>

#include <charconv>

#include <kiln/error.h>

#include "autotune/config_space.h"
#include "jit/tuning/gemm_tuning.h"
#include "jit/tuning/kernel_targets.h"
#include "jit/tuning/kernel_tuning.h"
#include "jit/tuning/tuning_store.h"
#include "profiler/settings/settings.h"

namespace kiln::tune {
namespace {

// The GEMM a target runs, m x k x n, in its kernel's layout (kGemmKernelNames).
kiln::jit::kernels::GemmShape gemm_shape(const Target& t) {
  for (const kiln::jit::tuning::GemmKernelName& k : kiln::jit::tuning::kGemmKernelNames)
    if (t.kernel == k.name) return {4, k.a_rows_contiguous, k.b_rows_contiguous, t.shape[0], t.shape[2], t.shape[1]};
  throw ValueError("kiln tune: unknown kernel '" + t.kernel + "'");
}

autotune::SearchOptions search_options(const Options& options) {
  autotune::SearchOptions search;
  search.budget_seconds = options.budget_seconds;
  search.cancel = options.cancel;
  if (options.on_progress)
    search.on_progress = [&options](const autotune::SearchProgress& p) {
      options.on_progress({p.evaluated, p.planned, p.elapsed_seconds, p.best ? p.best_seconds * 1e3 : 0});
    };
  return search;
}

// What every family's tuning run reports (GemmTuneResult, KernelTuneResult).
template <class Tuned>
Result result_of(const Target& target, const Tuned& r) {
  Result out;
  out.target = target;
  out.key = r.key;
  out.config = autotune::to_string(r.best_point);
  out.default_config = autotune::to_string(r.heuristic_point);
  out.default_ms = r.heuristic_seconds * 1e3;
  out.tuned_ms = r.best_seconds * 1e3;
  out.evaluated = r.search.evaluated;
  out.tuning_seconds = r.search.elapsed_seconds;
  out.complete = r.search.complete;
  out.stored = r.stored;
  return out;
}

Result run_fused_kernel(const Target& target, const Options& options) {
  const kiln::jit::KernelSpec spec = kiln::jit::tuning::fused_kernel_spec(target.kernel, target.shape);
  Result out = result_of(target, kiln::jit::tuning::tune_kernel(spec, search_options(options)));
  out.gbytes_per_second = out.tuned_ms > 0 ? kiln::jit::tuning::bytes_moved(spec) / (out.tuned_ms * 1e-3) / 1e9 : 0;
  return out;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

}  // namespace

std::string Target::text() const { return kernel + " " + shape_text(shape); }

std::vector<std::string> kernels() {
  std::vector<std::string> names;
  for (const kiln::jit::tuning::GemmKernelName& k : kiln::jit::tuning::kGemmKernelNames) names.push_back(k.name);
  for (const kiln::jit::tuning::FusedKernelName& k : kiln::jit::tuning::kFusedKernelNames) names.push_back(k.name);
  return names;
}

Target parse_target(std::string_view kernel, std::string_view shape) {
  const std::vector<std::string> known = kernels();
  if (std::find(known.begin(), known.end(), kernel) == known.end()) {
    std::string list;
    for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
    throw ValueError("kiln tune: unknown kernel '" + std::string(kernel) + "' (kernels: " + list + ")");
  }
  Target t{std::string(kernel), {}};
  std::string_view rest = shape;
  while (true) {
    const std::size_t x = rest.find('x');
    const std::string_view piece = rest.substr(0, x);
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), v);
    if (piece.empty() || ec != std::errc() || end != piece.data() + piece.size() || v < 1)
      throw ValueError("kiln tune: bad shape '" + std::string(shape) + "' for " + std::string(kernel) +
                       ": extents are positive integers joined by 'x', e.g. 128x512x512");
    t.shape.push_back(v);
    if (x == std::string_view::npos) break;
    rest = rest.substr(x + 1);
  }
  const kiln::jit::tuning::FusedKernelName* fused = kiln::jit::tuning::fused_kernel_name(kernel);
  const std::size_t extents = fused ? static_cast<std::size_t>(fused->extents) : 3;
  if (t.shape.size() != extents)
    throw ValueError("kiln tune: " + std::string(kernel) + " takes " + std::to_string(extents) + " extent" +
                     (extents == 1 ? "" : "s") + " (" +
                     (fused ? fused->extent_text : kernel == "linear" ? "batch x inputs x outputs" : "m x k x n") +
                     "), got '" + std::string(shape) + "'");
  return t;
}

Result run(const Target& target, const Options& options) {
  if (kiln::jit::tuning::fused_kernel_name(target.kernel)) return run_fused_kernel(target, options);
  const kiln::jit::kernels::GemmShape shape = gemm_shape(target);
  const kiln::jit::tuning::GemmTuneResult r = kiln::jit::tuning::tune_gemm(shape, search_options(options));
  Result out = result_of(target, r);
  out.gflops = 2.0 * double(shape.m) * double(shape.n) * double(shape.k) / r.best_seconds / 1e9;
  return out;
}

std::string database_path() {
  std::shared_ptr<autotune::TuningDb> db = kiln::jit::tuning::tuning_db();
  return db ? db->file().string() : std::string();
}

void use_database(const std::string& path) { kiln::jit::tuning::set_tuning_db_file(path); }

double default_budget_seconds() { return profiler::settings::read_duration(profiler::settings::Id::TuneBudget); }

std::vector<Entry> list() {
  std::vector<Entry> out;
  std::shared_ptr<autotune::TuningDb> db = kiln::jit::tuning::tuning_db();
  if (!db) return out;
  for (const auto& [key, e] : db->entries())
    out.push_back({key, autotune::to_string(e.config), e.default_seconds * 1e3, e.seconds * 1e3, e.tuning_seconds,
                   e.evaluated, e.tuned_at});
  return out;
}

std::size_t clear(std::string_view prefix) {
  std::shared_ptr<autotune::TuningDb> db = kiln::jit::tuning::tuning_db();
  if (!db) return 0;
  const std::size_t n = db->erase_matching(prefix);
  kiln::jit::tuning::bump_tuning_generation();
  return n;
}

}  // namespace kiln::tune
