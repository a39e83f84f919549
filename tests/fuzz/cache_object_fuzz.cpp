// libFuzzer target: the kernel cache's file check (jit/tier1/cache_object.*).
// Any bytes are accepted or refused without reading past them; an accepted
// file's payload is the rest of the bytes, of the size its header states.
// The key and environment asked for are the ones the bytes' header names (when
// long enough), so inputs get past those checks to the size and checksum.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <kiln/cache_format.h>

#include "jit/tier1/cache_object.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::uint64_t key = 0, env = 0;
  if (size >= sizeof(kiln::CacheFileHeader)) {
    std::memcpy(&key, data + offsetof(kiln::CacheFileHeader, key), sizeof key);
    std::memcpy(&env, data + offsetof(kiln::CacheFileHeader, env), sizeof env);
  }
  if (auto object = kiln::jit::parse_cache_object(bytes, key, env)) {
    if (object->payload.data() + object->payload.size() != bytes.data() + bytes.size()) std::abort();
    if (object->opt_level != 1 && object->opt_level != 3) std::abort();
  }
  return 0;
}
