#include "jit/tier1/config.h"

#include <atomic>
#include <string>

#include <kiln/error.h>

#include "profiler/settings/settings.h"

namespace kiln::jit {
namespace {

namespace settings = profiler::settings;
using settings::Id;

// Read at the first use of any of them.
struct Config {
  std::atomic<bool> enabled{settings::read_boolean(Id::Jit)};
  std::atomic<bool> threshold_explicit{settings::text(Id::HotThreshold).has_value()};
  std::atomic<std::int64_t> threshold{settings::read_integer(Id::HotThreshold)};
  std::atomic<bool> sync{settings::read_boolean(Id::JitSync)};
};

Config& config() {
  static Config c;
  return c;
}

}  // namespace

std::size_t max_keys() { return static_cast<std::size_t>(settings::read_integer(Id::JitMaxKeys)); }
std::size_t max_kernels() { return static_cast<std::size_t>(settings::read_integer(Id::JitMaxKernels)); }

bool enabled() { return config().enabled.load(std::memory_order_relaxed); }
void set_enabled(bool on) { config().enabled.store(on); }

std::int64_t hot_threshold() { return config().threshold.load(std::memory_order_relaxed); }
void set_hot_threshold(std::int64_t runs) {
  if (runs < 1) throw ValueError(detail::cat("[set_hot_threshold] the threshold must be at least 1, got ", runs));
  config().threshold.store(runs);
  config().threshold_explicit.store(true);
}
bool hot_threshold_is_explicit() { return config().threshold_explicit.load(std::memory_order_relaxed); }

namespace {
thread_local bool forced = false;
}

ForceCompile::ForceCompile(bool on) : previous_(forced) { forced = forced || on; }
ForceCompile::~ForceCompile() { forced = previous_; }
bool compile_forced() { return forced; }

bool compile_sync() { return forced || config().sync.load(std::memory_order_relaxed); }
void set_compile_sync(bool on) { config().sync.store(on); }

}  // namespace kiln::jit
