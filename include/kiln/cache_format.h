// The on-disk kernel cache's file format (KILN_CACHE_DIR), shared by the
// library that writes it and the `kiln cache` command that reads it.
//
// One file per compiled kernel, named "<key>-<env>.kobj" (16 hex digits
// each: the kernel key, and a hash of kiln's version, LLVM's version, the
// host CPU and its features); written as "<name>.tmp.<pid>.<n>" and renamed
// into place. The file is a CacheFileHeader followed by the object code,
// whose xxh3 is the header's checksum.
#pragma once

#include <cstdint>

namespace kiln {

/// Changes whenever what an object means changes (3: row and partial kernels).
inline constexpr char kCacheMagic[8] = {'K', 'I', 'L', 'N', 'O', 'B', 'J', '3'};

struct CacheFileHeader {
  char magic[8];
  std::uint64_t key;
  std::uint64_t env;
  std::uint64_t payload_bytes;
  std::uint64_t checksum;   // xxh3 of the payload
  std::uint64_t opt_level;  // 1 or 3
};

}  // namespace kiln
