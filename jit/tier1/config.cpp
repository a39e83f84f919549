#include "jit/tier1/config.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include <kiln/error.h>

namespace kiln::jit {
namespace {

std::int64_t env_int(const char* name, std::int64_t fallback, std::int64_t min) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (*end != '\0' || v < min)
    throw ValueError(detail::cat("[jit] ", name, "='", text, "' must be an integer >= ", min));
  return v;
}

struct Config {
  std::atomic<bool> enabled{env_int("KILN_JIT", 1, 0) != 0};
  std::atomic<bool> threshold_explicit{std::getenv("KILN_HOT_THRESHOLD") != nullptr};
  std::atomic<std::int64_t> threshold{env_int("KILN_HOT_THRESHOLD", 2, 1)};
  std::atomic<bool> sync{env_int("KILN_JIT_SYNC", 0, 0) != 0};
};

Config& config() {
  static Config c;
  return c;
}

}  // namespace

std::size_t max_keys() {
  static const auto n = static_cast<std::size_t>(env_int("KILN_JIT_MAX_KEYS", 4096, 8));
  return n;
}
std::size_t max_kernels() {
  static const auto n = static_cast<std::size_t>(env_int("KILN_JIT_MAX_KERNELS", 4096, 8));
  return n;
}

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
