#include "jit/tuning/tuning_store.h"

#include <atomic>
#include <memory>
#include <mutex>

#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/TargetParser/Host.h>

#include <kiln/error.h>
#include <kiln/version.h>

#include "jit/kernels/gemm.h"
#include "jit/tier1/disk_cache.h"
#include "profiler/settings/settings.h"

namespace kiln::jit::tuning {
namespace {

const char* variant_name(kernels::GemmVariant v) {
  switch (v) {
    case kernels::GemmVariant::Avx512: return "avx512f+fma";
    case kernels::GemmVariant::Avx2: return "avx2+fma";
    default: return "baseline";
  }
}

autotune::TuningContext context() {
  return {llvm::sys::getHostCPUName().str(), variant_name(kernels::current_gemm_variant()), kVersion,
          LLVM_VERSION_STRING};
}

std::filesystem::path default_file() {
  if (std::string file = profiler::settings::read_text(profiler::settings::Id::TuningDb); !file.empty()) return file;
  const std::string dir = disk_cache_dir();
  return dir.empty() ? std::filesystem::path() : std::filesystem::path(dir) / "tuning.json";
}

struct Store {
  std::mutex mutex;
  std::shared_ptr<autotune::TuningDb> db;
  bool opened = false;
};

// Never destroyed: kernels may look configs up while the process exits.
Store& store() {
  static Store& s = *new Store;
  return s;
}

std::atomic<std::uint64_t> generation{0};

}  // namespace

namespace {

using profiler::settings::Id;

std::atomic<AutotuneMode>& mode_setting() {
  static std::atomic<AutotuneMode> mode = [] {
    const std::string v = profiler::settings::read_text(Id::Autotune);
    return v == "0" ? AutotuneMode::Off : v == "online" ? AutotuneMode::Online : AutotuneMode::Database;
  }();
  return mode;
}

std::atomic<double>& budget_setting() {
  static std::atomic<double> seconds{profiler::settings::read_duration(Id::AutotuneBudget)};
  return seconds;
}

}  // namespace

AutotuneMode autotune_mode() { return mode_setting().load(std::memory_order_relaxed); }
void set_autotune_mode(AutotuneMode mode) { mode_setting().store(mode, std::memory_order_relaxed); }

double online_budget_seconds() { return budget_setting().load(std::memory_order_relaxed); }
void set_online_budget_seconds(double seconds) {
  if (!(seconds > 0))
    throw ValueError(detail::cat("[set_autotune_budget] the budget must be more than 0 seconds, got ", seconds));
  budget_setting().store(seconds, std::memory_order_relaxed);
}

std::shared_ptr<autotune::TuningDb> tuning_db() {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  if (!s.opened) {
    s.opened = true;
    if (std::filesystem::path file = default_file(); !file.empty())
      s.db = std::make_shared<autotune::TuningDb>(file, context());
  }
  return s.db;
}

void set_tuning_db_file(const std::filesystem::path& file) {
  {
    Store& s = store();
    std::lock_guard lock(s.mutex);
    s.opened = true;
    s.db = std::make_shared<autotune::TuningDb>(file, context());
  }
  bump_tuning_generation();
}

std::uint64_t tuning_generation() { return generation.load(std::memory_order_acquire); }
void bump_tuning_generation() { generation.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace kiln::jit::tuning
