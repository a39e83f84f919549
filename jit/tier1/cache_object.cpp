#include "jit/tier1/cache_object.h"

#include <xxhash.h>

#include <cstring>

#include <kiln/cache_format.h>

namespace kiln::jit {

std::optional<CacheObject> parse_cache_object(std::string_view bytes, std::uint64_t key, std::uint64_t env) {
  CacheFileHeader h;
  if (bytes.size() < sizeof h) return std::nullopt;
  std::memcpy(&h, bytes.data(), sizeof h);
  const std::string_view payload = bytes.substr(sizeof h);
  const bool valid = std::memcmp(h.magic, kCacheMagic, sizeof kCacheMagic) == 0 && h.key == key && h.env == env &&
                     h.payload_bytes == payload.size() &&
                     h.checksum == XXH3_64bits(payload.data(), payload.size()) &&
                     (h.opt_level == 1 || h.opt_level == 3);
  if (!valid) return std::nullopt;
  return CacheObject{payload, static_cast<int>(h.opt_level)};
}

}  // namespace kiln::jit
