#include "jit/tier1/disk_cache.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <llvm/Config/llvm-config.h>
#include <unistd.h>
#include <xxhash.h>

#include <kiln/cache_format.h>
#include <kiln/setting_parsers.h>
#include <kiln/version.h>

#include "jit/orc/session.h"
#include "jit/tier1/cache_object.h"
#include "profiler/jit_counters.h"
#include "profiler/settings/settings.h"

namespace kiln::jit {
namespace {

namespace fs = std::filesystem;
using profiler::settings::Id;

// KILN_CACHE_MAX_BYTES, read at the first store (or limit query).
std::atomic<std::uint64_t>& limit() {
  static std::atomic<std::uint64_t> bytes{profiler::settings::read_bytes(Id::CacheMaxBytes)};
  return bytes;
}

// Where the cache is, and whether it held anything when chosen: decided
// once per directory, so a program with an empty cache never pays for
// starting LLVM to compute file names.
struct Location {
  std::string dir;
  bool had_files = false;
};

std::shared_ptr<const Location> locate(std::string dir) {
  std::error_code ec;
  const bool had_files = !dir.empty() && fs::is_directory(dir, ec) && !fs::is_empty(dir, ec);
  return std::make_shared<const Location>(Location{std::move(dir), had_files});
}

// KILN_CACHE_DIR, else the platform's cache directory.
std::string dir_from_environment() {
  std::optional<std::string> setting;
  if (profiler::settings::text(Id::CacheDir)) setting = profiler::settings::read_text(Id::CacheDir);
  return kiln::settings::cache_dir_for(setting);
}

// Never destroyed: a compile task may still ask while the process exits.
std::atomic<std::shared_ptr<const Location>>& location_slot() {
  static auto& slot = *new std::atomic<std::shared_ptr<const Location>>(locate(dir_from_environment()));
  return slot;
}

std::shared_ptr<const Location> location() { return location_slot().load(std::memory_order_acquire); }

// The revision of the code generated for a KernelSpec: bumped whenever
// codegen emits different code for the same spec, so that objects from an
// earlier build of the same version are not loaded. 3: inline expf (Estrin),
// row buffers of costly values, blocked float32 sums, next-row prefetches.
// 4: partial kernels' float32 sums in blocks of 4096 (their rounding moved).
// 5: amax/amin by maxnum and a NaN flag; expf's NaN through its clamps.
// 6: expf's 2^n by vscalefps on AVX-512.
// 7: softmax-like row buffers in the output they end in.
// 8: 512-bit vectors preferred on every AVX-512 host.
constexpr int kCodegenRevision = 8;

// Everything besides the kernel key that decides whether an object fits.
// Kernel keys hash op ids, which are positions in trace/ops.def: the op
// table's names, in order, are part of it, or a build with an op added
// would load another op's kernel under the same key.
std::uint64_t environment_hash(OrcSession& orc) {
  std::string env = std::string(kVersion) + "|codegen " + std::to_string(kCodegenRevision) +
                    "|" LLVM_VERSION_STRING "|" + orc.host_cpu() + "|" + orc.host_features();
  for (int op = 0; op < trace::kNumOps; ++op) (env += '|') += trace::name(static_cast<trace::OpId>(op));
  return XXH3_64bits(env.data(), env.size());
}

fs::path file_for(std::uint64_t key, std::uint64_t env) {
  char name[64];
  std::snprintf(name, sizeof name, "%016llx-%016llx.kobj", static_cast<unsigned long long>(key),
                static_cast<unsigned long long>(env));
  return fs::path(disk_cache_dir()) / name;
}

void evict_to_limit(const fs::path& dir) {
  struct File {
    fs::path path;
    fs::file_time_type used;
    std::uintmax_t bytes;
  };
  std::vector<File> files;
  std::uintmax_t total = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".kobj" || !e.is_regular_file()) continue;
    files.push_back({e.path(), e.last_write_time(), e.file_size()});
    total += files.back().bytes;
  }
  const std::uint64_t max_bytes = limit().load();
  if (total <= max_bytes) return;
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.used < b.used; });
  for (const File& f : files) {
    if (total <= max_bytes) break;
    std::error_code ignored;
    if (fs::remove(f.path, ignored)) total -= f.bytes;
  }
}

}  // namespace

bool disk_cache_has(std::uint64_t key) {
  if (!location()->had_files) return false;
  static const std::uint64_t env = environment_hash(OrcSession::instance());
  std::error_code ec;
  return fs::exists(file_for(key, env), ec);
}

std::string disk_cache_dir() { return location()->dir; }

void set_disk_cache_dir(const std::string& dir) { location_slot().store(locate(dir), std::memory_order_release); }

void set_disk_cache_limit(std::uint64_t bytes) { limit().store(bytes); }
std::uint64_t disk_cache_limit() { return limit().load(); }

CachedKernel disk_cache_load(std::uint64_t key, OrcSession& orc) {
  if (disk_cache_dir().empty()) return {};
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t env = environment_hash(orc);
  fs::path path = file_for(key, env);
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  if (std::optional<CacheObject> object = parse_cache_object(bytes, key, env)) {
    try {
      LinkedKernel linked = orc.load_object(key, object->payload);
      std::error_code ignored;
      fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);  // recently used
      profiler::count(profiler::JitEvent::DiskCacheHit);
      profiler::record_disk_load_ms(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      CachedKernel cached;
      static_cast<LinkedKernel&>(cached) = std::move(linked);
      cached.opt_level = object->opt_level;
      return cached;
    } catch (const std::exception& e) {
      profiler::record_failure(std::string("disk cache object rejected: ") + e.what());
    }
  }
  // Not ours, truncated or corrupted: drop it; the next compile writes a good one.
  std::error_code ignored;
  fs::remove(path, ignored);
  return {};
}

void disk_cache_store(std::uint64_t key, int opt_level, std::string_view object, OrcSession& orc) {
  if (disk_cache_dir().empty() || object.empty()) return;
  try {
    std::uint64_t env = environment_hash(orc);
    fs::path path = file_for(key, env);
    fs::create_directories(path.parent_path());
    CacheFileHeader h;
    std::memcpy(h.magic, kCacheMagic, sizeof kCacheMagic);
    h.key = key;
    h.env = env;
    h.payload_bytes = object.size();
    h.checksum = XXH3_64bits(object.data(), object.size());
    h.opt_level = static_cast<std::uint64_t>(opt_level);
    // Unique temporary name in the same directory, then an atomic rename.
    std::random_device rd;
    fs::path tmp = path;
    tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(&h), sizeof h);
      out.write(object.data(), static_cast<std::streamsize>(object.size()));
      if (!out) throw std::runtime_error("write failed");
    }
    fs::rename(tmp, path);
    profiler::count(profiler::JitEvent::DiskCacheWrite);
    evict_to_limit(path.parent_path());
  } catch (const std::exception& e) {
    profiler::record_failure(std::string("disk cache write failed: ") + e.what());
  }
}

}  // namespace kiln::jit
