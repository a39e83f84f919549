// The on-disk kernel cache: compiled objects under KILN_CACHE_DIR (default
// $XDG_CACHE_HOME/kiln, else ~/.cache/kiln), so a second run of a program
// starts compiled. A file is named by the kernel key and an environment
// hash (CPU, its features, kiln and LLVM versions) and carries a header
// repeating them plus a checksum; anything that does not match -- truncated,
// corrupted, foreign -- is ignored and replaced, never trusted. Writes go to
// a temporary file and are renamed into place, so processes can share the
// directory. The total size is bounded (KILN_CACHE_MAX_BYTES, default 256
// MiB) by evicting the least recently used files.
#pragma once

#include <cstdint>
#include <string>

#include <string_view>

#include "jit/fusion/kernel_spec.h"
#include "jit/orc/session.h"

namespace kiln::jit {

struct CachedKernel : LinkedKernel {  // fn null: not on disk (or disabled, or any mismatch)
  int opt_level = 0;  // the level it was compiled at
};

/// The compiled kernel of `key` from disk.
CachedKernel disk_cache_load(std::uint64_t key, OrcSession& orc);
/// Writes `object`, the object file of a compile of `key` at `opt_level`;
/// failures are counted, never thrown.
void disk_cache_store(std::uint64_t key, int opt_level, std::string_view object, OrcSession& orc);

/// True when a file for `key` is on disk (not yet validated: loading checks it).
/// Cheap when the cache directory is empty or off: then the JIT is not even started.
bool disk_cache_has(std::uint64_t key);

/// The directory in use ("" when the cache is off: KILN_CACHE_DIR=off).
std::string disk_cache_dir();
/// Uses `dir` from now on ("" turns the cache off; kiln::set_cache_dir).
void set_disk_cache_dir(const std::string& dir);
/// Bytes the cache may hold; older files are evicted past it
/// (KILN_CACHE_MAX_BYTES; kiln::set_cache_max_bytes).
void set_disk_cache_limit(std::uint64_t bytes);
std::uint64_t disk_cache_limit();

}  // namespace kiln::jit
