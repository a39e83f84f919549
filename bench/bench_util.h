// Helpers the bench programs share: a median, a loud failure, and running
// this program again as a child process (for measurements that need a fresh
// process: time to steady state, the disk cache).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// A benchmark whose result is wrong must not report a speed.
[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "\n%s: FATAL: %s\n", program_invocation_short_name, what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// Runs this program again as `<env> jit_bench <mode>` (its stderr goes to
// ours) and parses the one line it prints: "name=value name=value ...".
inline std::map<std::string, double> run_child(const std::string& env, const std::string& mode) {
  const std::string exe = self_exe();
  if (exe.empty()) die("cannot find /proc/self/exe");
  const std::string cmd = env + " '" + exe + "' " + mode;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) die("popen failed: " + cmd);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = pclose(p);
  std::map<std::string, double> r;
  std::istringstream in(out);
  std::string item;
  while (in >> item) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) r[item.substr(0, eq)] = std::strtod(item.c_str() + eq + 1, nullptr);
  }
  if (rc != 0 || r.empty()) die("child `" + cmd + "` failed (status " + std::to_string(rc) + "): " + out);
  return r;
}

inline void put_counters(benchmark::State& state, const std::map<std::string, double>& values) {
  for (const auto& [k, v] : values) state.counters[k] = v;
}

}  // namespace
