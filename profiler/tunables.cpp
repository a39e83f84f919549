#include "profiler/tunables.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

#include "profiler/enabled.h"

namespace kiln::profiler {
namespace {

struct Row {
  std::string target;
  std::uint32_t threads = 0;
  std::uint64_t calls = 0;
  std::int64_t nanoseconds = 0;
  const char* config = "heuristic";
};

// One mutex for all rows: a tunable call is a GEMM of at least 2^18
// multiply-adds or a compiled kernel over 2^18 elements (tens of
// microseconds), so the lock is never hot.
struct Table {
  std::mutex mu;
  std::unordered_map<std::string, Row> rows;
};

Table& table() {
  static Table& t = *new Table;  // never destroyed: kernels may run while the process exits
  return t;
}

}  // namespace

void note_tunable_run(const TunableRun& run) noexcept {
  if (!enabled()) return;
  try {
    Table& t = table();
    std::lock_guard lock(t.mu);
    auto [it, added] = t.rows.try_emplace(std::string(run.key));
    Row& row = it->second;
    if (added) {
      row.target = run.target;
      row.threads = run.threads;
    }
    ++row.calls;
    row.nanoseconds += run.nanoseconds;
    row.config = run.config;
  } catch (...) {
  }
}

std::vector<TunableStats> tunable_stats(std::size_t limit) {
  std::vector<TunableStats> out;
  {
    Table& t = table();
    std::lock_guard lock(t.mu);
    for (const auto& [key, row] : t.rows)
      if (row.calls > 0)
        out.push_back({key, row.target, row.threads, row.calls, static_cast<double>(row.nanoseconds) / 1e6, row.config});
  }
  std::sort(out.begin(), out.end(), [](const TunableStats& a, const TunableStats& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.key < b.key;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

void reset_tunables() noexcept {
  Table& t = table();
  std::lock_guard lock(t.mu);
  for (auto& [key, row] : t.rows) {
    row.calls = 0;
    row.nanoseconds = 0;
  }
}

}  // namespace kiln::profiler
