#include "tools/cache_files.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include <kiln/cache_format.h>
#include <kiln/setting_parsers.h>

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

// kiln/cache_format.h: "<key>-<env>.kobj", temporaries "<name>.tmp.<pid>.<n>".
const std::regex kObjectName("([0-9a-f]{16})-([0-9a-f]{16})\\.kobj");
const std::regex kTempName("[0-9a-f]{16}-[0-9a-f]{16}\\.kobj\\.tmp\\.[0-9]+\\.[0-9]+");


void check(CacheFile& f) {
  std::ifstream in(f.path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CacheFileHeader h;
  if (bytes.size() < sizeof h) return void(f.problem = "truncated header");
  std::memcpy(&h, bytes.data(), sizeof h);
  f.opt_level = static_cast<int>(h.opt_level);
  std::string_view payload(bytes.data() + sizeof h, bytes.size() - sizeof h);
  if (std::memcmp(h.magic, kCacheMagic, sizeof kCacheMagic) != 0) return void(f.problem = "not a kiln object (magic)");
  if (std::strtoull(f.key.c_str(), nullptr, 16) != h.key || std::strtoull(f.env.c_str(), nullptr, 16) != h.env)
    return void(f.problem = "header does not match its name");
  if (h.payload_bytes != payload.size()) return void(f.problem = "truncated");
  if (h.checksum != XXH3_64bits(payload.data(), payload.size())) return void(f.problem = "checksum mismatch");
  if (h.opt_level != 1 && h.opt_level != 3) return void(f.problem = "bad opt level");
  f.valid = true;
}

}  // namespace

std::string cache_dir_from_env() {
  std::optional<std::string> setting = settings::environment("KILN_CACHE_DIR");
  if (setting) setting = settings::parse_path("KILN_CACHE_DIR", *setting);
  return settings::cache_dir_for(setting);
}

std::vector<CacheFile> scan_cache(const std::string& dir) {
  std::vector<CacheFile> files;
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::string name = e.path().filename().string();
    std::smatch m;
    CacheFile f;
    f.path = e.path().string();
    if (std::regex_match(name, m, kObjectName)) {
      f.key = m[1];
      f.env = m[2];
      check(f);
    } else if (std::regex_match(name, kTempName)) {
      f.problem = "leftover temporary file";
    } else {
      continue;
    }
    f.bytes = e.file_size(ec);
    f.age_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - e.last_write_time(ec)).count();
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const CacheFile& a, const CacheFile& b) {
    return std::tie(a.key, a.path) < std::tie(b.key, b.path);
  });
  return files;
}

}  // namespace kiln::tools
