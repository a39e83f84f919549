// Reading one file of the on-disk kernel cache (kiln/cache_format.h): the
// header checks, apart from loading the object into ORC, so that they can be
// tested and fuzzed on bytes alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::jit {

struct CacheObject {
  std::string_view payload;  // the object code, inside the bytes passed in
  int opt_level = 0;         // 1 or 3
};

/// The object in a cache file's `bytes` when they are a whole, intact file
/// for kernel `key` built under `env`: magic, key, environment, payload size,
/// checksum and optimization level all match. Anything else (truncated,
/// corrupted, another kernel or another kiln) gives nullopt.
std::optional<CacheObject> parse_cache_object(std::string_view bytes, std::uint64_t key, std::uint64_t env);

}  // namespace kiln::jit
