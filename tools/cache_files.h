// The on-disk kernel cache as files: where it is and what each file holds.
// The layout is kiln/cache_format.h, which the library writes by; tests/tools
// checks that files the library writes read as valid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tools {

/// KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln; "" when
/// the cache is off (KILN_CACHE_DIR=off) or no home is known.
std::string cache_dir_from_env();

struct CacheFile {
  std::string path;
  std::string key;  // kernel key, 16 hex digits ("" for a leftover temporary file)
  std::string env;  // hash of kiln/LLVM version and CPU the object was built for
  std::uint64_t bytes = 0;
  std::int64_t age_ms = 0;  // since last use (loads touch the file)
  int opt_level = 0;
  bool valid = false;
  std::string problem;  // why it is not valid
};

/// kiln's files in `dir` (objects and leftover temporaries), sorted by key;
/// other files are never listed. Checks each header and checksum.
std::vector<CacheFile> scan_cache(const std::string& dir);

}  // namespace kiln::tools
