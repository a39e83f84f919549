// `kiln cache ls|stat|clear [--dir DIR]`: the on-disk kernel cache.
#include <filesystem>
#include <iostream>
#include <set>

#include "tools/cache_files.h"
#include "tools/commands.h"
#include "tools/format.h"

namespace kiln::tools {
namespace {

const char* kCacheUsage =
    "usage: kiln cache ls|stat|clear [--dir DIR]\n"
    "  DIR defaults to $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln\n"
    "  clear removes kiln's kernel objects only, never other files in DIR\n";

std::string opt_name(int level) {
  if (level != 1 && level != 3) return "-";
  return std::string("O").append(std::to_string(level));
}

int ls(const std::vector<CacheFile>& files) {
  std::cout << cell("KEY", 16) << " " << cell("ENV", 16) << " " << cell("SIZE", 10, true) << " "
            << cell("AGE", 7, true) << "  OPT  STATUS\n";
  for (const CacheFile& f : files)
    std::cout << cell(f.key.empty() ? "-" : f.key, 16) << " " << cell(f.env.empty() ? "-" : f.env, 16) << " "
              << cell(bytes(static_cast<double>(f.bytes)), 10, true) << " " << cell(age(f.age_ms), 7, true) << "  "
              << cell(opt_name(f.opt_level), 3) << "  "
              << (f.valid ? "valid" : "invalid: " + f.problem) << "\n";
  return 0;
}

int stat(const std::string& dir, const std::vector<CacheFile>& files) {
  std::uint64_t total = 0, valid = 0;
  std::set<std::string> envs;
  for (const CacheFile& f : files) {
    total += f.bytes;
    valid += f.valid;
    if (!f.env.empty()) envs.insert(f.env);
  }
  std::cout << "directory  " << dir << "\n"
            << "files      " << files.size() << " (" << valid << " valid, " << files.size() - valid << " invalid)\n"
            << "size       " << bytes(static_cast<double>(total)) << "\n"
            << "builds     " << envs.size() << " (distinct kiln/LLVM/CPU combinations)\n";
  return 0;
}

int clear(const std::vector<CacheFile>& files) {
  std::uint64_t removed = 0, freed = 0;
  int status = 0;
  for (const CacheFile& f : files) {
    std::error_code ec;
    if (std::filesystem::remove(f.path, ec)) {
      ++removed;
      freed += f.bytes;
    } else if (ec) {
      std::cerr << "kiln cache clear: " << f.path << ": " << ec.message() << "\n";
      status = 1;
    }
  }
  std::cout << "removed " << removed << " files (" << bytes(static_cast<double>(freed)) << ")\n";
  return status;
}

}  // namespace

int cache_command(const Args& args) {
  std::string action, dir = cache_dir_from_env();
  bool bad = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--dir" && i + 1 < args.size()) dir = args[++i];
    else if (action.empty() && (args[i] == "ls" || args[i] == "stat" || args[i] == "clear")) action = args[i];
    else bad = true;
  }
  if (action.empty() || bad) {
    std::cerr << kCacheUsage;
    return 2;
  }
  if (dir.empty()) {
    std::cerr << "kiln cache: the kernel cache is off (KILN_CACHE_DIR=off) or no home directory is known\n";
    return 1;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    // Nothing was ever cached there: an empty cache, not an error.
    if (action == "stat") return stat(dir, {});
    if (action == "ls") return ls({});
    std::cout << "removed 0 files (" << dir << " does not exist)\n";
    return 0;
  }
  std::vector<CacheFile> files = scan_cache(dir);
  if (action == "ls") return ls(files);
  if (action == "stat") return stat(dir, files);
  return clear(files);
}

}  // namespace kiln::tools
