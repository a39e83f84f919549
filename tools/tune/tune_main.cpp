// `kiln-tune`, run as `kiln tune ...`: tunes kernels at given shapes on this
// machine and manages the tuning database. Unlike the rest of the `kiln`
// program it links libkiln: tuning runs kiln's kernels.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <kiln/error.h>
#include <kiln/frontend/runtime.h>
#include <kiln/tune.h>

#include "tools/format.h"
#include "tools/tune/from_run.h"
#include "tools/tune/peer.h"
#include "tools/tune/progress.h"

namespace {

const char* kUsage =
    "usage: kiln tune [--budget SECONDS] [--threads N] [--json] [--db PATH] KERNEL SHAPE [KERNEL SHAPE ...]\n"
    "       kiln tune --from STATS.json [--top N] [options] [KERNEL SHAPE ...]\n"
    "       kiln tune ls [--json] [--db PATH]\n"
    "       kiln tune clear [PREFIX] [--db PATH]\n"
    "  kernels: matmul MxKxN   C[MxN] = A[MxK] B[KxN] (torch::mm)\n"
    "           linear BxIxO   a linear layer: B rows of I inputs, O outputs (x w^T)\n"
    "           matmul_tn MxKxN  C = A^T B with A stored KxM (a linear layer's weight gradient)\n"
    "           sum N          x.sum() over N floats (a JIT-compiled reduction)\n"
    "           softmax RxC    x.softmax(1) over R rows of C floats (a JIT-compiled row kernel)\n"
    "           exp N          x.exp() over N floats (a JIT-compiled elementwise kernel)\n"
    "  --from STATS.json the hot kernels a recorded run used (its KILN_STATS snapshot), with the threads\n"
    "                    it ran on; kernels the database has already are skipped\n"
    "  --top N           with --from: at most N kernels, most time first (default 8); kernels under 1%\n"
    "                    of the run's tunable time are left out\n"
    "  --budget SECONDS  search time per kernel (default $KILN_TUNE_BUDGET, else 20); the best found in it is kept\n"
    "  --threads N       kernel threads to tune for (default: every core); tuned configs are per thread count\n"
    "  --json            results as JSON on stdout\n"
    "  Where OpenBLAS is installed (libopenblas.so.0), its sgemm is timed on each shape too (OPENBLAS column;\n"
    "                    the table names the kernels OpenBLAS ran, which OPENBLAS_CORETYPE can choose).\n"
    "  --db PATH         the database (default $KILN_TUNING_DB, else tuning.json in the kernel cache directory)\n"
    "  Ctrl-C stops the search under way; nothing of it is stored and the database stays valid.\n";

std::atomic<bool> g_cancel{false};

extern "C" void on_interrupt(int) {
  g_cancel.store(true);
  ::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A tuned result and its peer's time (OpenBLAS, when installed).
struct Row {
  kiln::tune::Result result;
  std::optional<double> peer_ms;
};

std::string ratio(double x) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2fx", x);
  return s;
}

void print_table(const std::vector<Row>& rows) {
  using kiln::tools::cell;
  using kiln::tools::millis;
  std::cout << cell("KERNEL", 26) << " " << cell("DEFAULT", 10, true) << " " << cell("TUNED", 10, true) << " "
            << cell("SPEED-UP", 8, true) << " " << cell("GFLOP/S", 8, true) << " " << cell("GB/S", 6, true) << " "
            << cell("OPENBLAS", 10, true)
            << " " << cell("VS BLAS", 8, true) << " " << cell("TUNING", 8, true) << "  CONFIG\n";
  for (const Row& row : rows) {
    const kiln::tune::Result& r = row.result;
    char gflops[32] = "-", gbps[32] = "-", tuning[32];
    if (r.gflops > 0) std::snprintf(gflops, sizeof gflops, "%.1f", r.gflops);
    if (r.gbytes_per_second > 0) std::snprintf(gbps, sizeof gbps, "%.1f", r.gbytes_per_second);
    std::snprintf(tuning, sizeof tuning, "%.1f s", r.tuning_seconds);
    std::cout << cell(r.target.text(), 26) << " " << cell(millis(r.default_ms), 10, true) << " "
              << cell(millis(r.tuned_ms), 10, true) << " " << cell(ratio(r.default_ms / r.tuned_ms), 8, true) << " "
              << cell(gflops, 8, true) << " " << cell(gbps, 6, true) << " " << cell(row.peer_ms ? millis(*row.peer_ms) : "-", 10, true) << " "
              << cell(row.peer_ms ? ratio(*row.peer_ms / r.tuned_ms) : "-", 8, true) << " " << cell(tuning, 8, true)
              << "  " << r.config << (r.complete ? "" : " (budget reached)")
              << (r.stored ? "" : " (not stored: no database)") << "\n";
  }
  // Only GEMM rows have a peer (they have a GFLOP/s), so only they tell whether OpenBLAS is there.
  const bool gemm_rows = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.result.gflops > 0; });
  const bool peer_rows = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.peer_ms.has_value(); });
  if (gemm_rows && !peer_rows)
    std::cout << "(OPENBLAS: libopenblas.so.0 is not installed; VS BLAS > 1: kiln is faster)\n";
  if (!peer_rows) return;
  const std::string core = kiln::tools::openblas_core();
  std::cout << "(OPENBLAS: cblas_sgemm of libopenblas.so.0, " << (core.empty() ? "core unknown" : core + " kernels")
            << "; VS BLAS > 1: kiln is faster)\n";
  if (core == "Prescott" && __builtin_cpu_supports("avx2"))
    std::cout << "(OpenBLAS does not know this CPU's model and runs its generic SSE3 kernels: set OPENBLAS_CORETYPE "
                 "to the core of its vector ISA, e.g. Cooperlake, SkylakeX or Haswell, for a fair column)\n";
}

void print_json(const std::vector<Row>& rows) {
  std::cout << "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const kiln::tune::Result& r = rows[i].result;
    std::cout << (i ? ",\n " : "\n ") << "{\"target\": " << quoted(r.target.text()) << ", \"key\": " << quoted(r.key)
              << ", \"config\": " << quoted(r.config) << ", \"default_config\": " << quoted(r.default_config)
              << ", \"default_ms\": " << r.default_ms << ", \"tuned_ms\": " << r.tuned_ms
              << ", \"gflops\": " << r.gflops << ", \"gbytes_per_second\": " << r.gbytes_per_second
              << ", \"evaluated\": " << r.evaluated
              << ", \"tuning_seconds\": " << r.tuning_seconds << ", \"complete\": " << (r.complete ? "true" : "false")
              << ", \"stored\": " << (r.stored ? "true" : "false") << ", \"openblas_ms\": ";
    if (rows[i].peer_ms) std::cout << *rows[i].peer_ms;
    else std::cout << "null";
    std::cout << "}";
  }
  std::cout << "\n]\n";
}

// A target and the kernel threads to tune it with.
struct Job {
  kiln::tune::Target target;
  int threads;
};

// The peers, timed after all tuning (OpenBLAS's threads keep spinning for a
// while after a call and would slow the searches down), with each job's
// threads. `peers` false: none (the user interrupted the run and wants out).
std::vector<Row> with_peers(std::vector<kiln::tune::Result> results, const std::vector<Job>& jobs, bool peers) {
  std::vector<Row> rows;
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::optional<double> peer = peers ? kiln::tools::openblas_ms(results[i].target, jobs[i].threads) : std::nullopt;
    rows.push_back({std::move(results[i]), peer});
  }
  return rows;
}

int list(bool json) {
  const std::vector<kiln::tune::Entry> entries = kiln::tune::list();
  if (json) {
    std::cout << "[";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const kiln::tune::Entry& e = entries[i];
      std::cout << (i ? ",\n " : "\n ") << "{\"key\": " << quoted(e.key) << ", \"config\": " << quoted(e.config)
                << ", \"default_ms\": " << e.default_ms << ", \"tuned_ms\": " << e.tuned_ms
                << ", \"tuning_seconds\": " << e.tuning_seconds << ", \"tuned_at\": " << e.tuned_at << "}";
    }
    std::cout << "\n]\n";
    return 0;
  }
  using kiln::tools::cell;
  std::cout << "database " << kiln::tune::database_path() << ": " << entries.size() << " entries\n";
  if (entries.empty()) return 0;
  std::cout << cell("KEY", 34) << " " << cell("DEFAULT", 10, true) << " " << cell("TUNED", 10, true) << " "
            << cell("AGE", 7, true) << "  CONFIG\n";
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  for (const kiln::tune::Entry& e : entries)
    std::cout << cell(e.key, 34) << " " << cell(kiln::tools::millis(e.default_ms), 10, true) << " "
              << cell(kiln::tools::millis(e.tuned_ms), 10, true) << " "
              << cell(kiln::tools::age((now - e.tuned_at) * 1000), 7, true) << "  " << e.config << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  double budget = 0;
  try {
    budget = kiln::tune::default_budget_seconds();
  } catch (const kiln::ValueError& e) {
    std::cerr << "kiln tune: " << e.what() << "\n";
    return 2;
  }
  int threads = 0;
  double top = 8;
  bool json = false;
  std::string db, from;
  std::vector<std::string> rest;
  std::string bad;  // what is wrong with the options, if anything
  for (std::size_t i = 0; i < args.size() && bad.empty(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    // A number option's value, or "" after recording what is wrong with it.
    auto number = [&](const char* what, double min, bool whole) {
      const std::string text = has_value ? args[++i] : "";
      char* end = nullptr;
      const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v >= min) || (whole && v != static_cast<double>(static_cast<long>(v))))
        bad = a + " needs " + what + ", got '" + text + "'";
      return v;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--budget") {
      budget = number("a number of seconds > 0", 1e-3, false);
    } else if (a == "--threads") {
      threads = static_cast<int>(number("a whole number >= 1", 1, true));
    } else if (a == "--top") {
      top = number("a whole number >= 1", 1, true);
    } else if (a == "--db" && has_value) {
      db = args[++i];
    } else if (a == "--from" && has_value) {
      from = args[++i];
    } else if (a == "--json") {
      json = true;
    } else if (a.rfind("--", 0) == 0) {
      bad = "unknown option '" + a + "'";
    } else {
      rest.push_back(a);
    }
  }
  if (!bad.empty()) {
    std::cerr << "kiln tune: " << bad << "\n" << kUsage;
    return 2;
  }
  if (!db.empty()) kiln::tune::use_database(db);
  const bool manage = !rest.empty() && ((rest[0] == "ls" && rest.size() == 1) || (rest[0] == "clear" && rest.size() <= 2));
  if (manage && kiln::tune::database_path().empty()) {
    std::cerr << "kiln tune: no tuning database (KILN_CACHE_DIR=off and no KILN_TUNING_DB; or give --db PATH)\n";
    return 1;
  }
  if (!rest.empty() && rest[0] == "ls" && rest.size() == 1) return list(json);
  if (!rest.empty() && rest[0] == "clear" && rest.size() <= 2) {
    const std::size_t n = kiln::tune::clear(rest.size() == 2 ? rest[1] : "");
    std::cout << "removed " << n << " entries from " << kiln::tune::database_path() << "\n";
    return 0;
  }
  if ((rest.empty() && from.empty()) || rest.size() % 2 != 0) {
    std::cerr << kUsage;
    return 2;
  }
  const int default_threads = threads > 0 ? threads : kiln::get_num_threads();
  std::vector<Job> jobs;
  if (!from.empty()) {
    std::vector<std::string> tuned;
    for (const kiln::tune::Entry& e : kiln::tune::list()) tuned.push_back(e.key);
    const kiln::tools::RunKernels run = kiln::tools::kernels_of_run(from, static_cast<std::size_t>(top), tuned);
    if (!run.error.empty()) {
      std::cerr << "kiln tune: " << run.error << "\n";
      return 2;
    }
    std::cerr << "kiln tune: from " << from << ": " << run.summary << "\n";
    for (const std::string& why : run.skipped) std::cerr << "  skipped " << why << "\n";
    // The run's thread count, unless --threads says otherwise: tuned configs are per thread count.
    for (const kiln::tools::RunKernel& k : run.chosen)
      jobs.push_back({k.target, threads > 0 ? threads : std::max(1, k.threads)});
  }
  try {
    for (std::size_t i = 0; i < rest.size(); i += 2)
      jobs.push_back({kiln::tune::parse_target(rest[i], rest[i + 1]), default_threads});
  } catch (const kiln::ValueError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  if (jobs.empty()) {
    std::cerr << "kiln tune: nothing to tune\n";
    return 0;
  }
  if (kiln::tune::database_path().empty())
    std::cerr << "kiln tune: no database (KILN_CACHE_DIR=off and no KILN_TUNING_DB): results are not kept\n";
  ::signal(SIGINT, on_interrupt);
  std::vector<kiln::tune::Result> results;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    kiln::set_num_threads(jobs[i].threads);
    kiln::tools::TuneProgress progress(jobs[i].target.text(), static_cast<int>(i + 1), static_cast<int>(jobs.size()));
    kiln::tune::Options options;
    options.budget_seconds = budget;
    options.cancel = &g_cancel;
    options.on_progress = [&](const kiln::tune::Progress& p) { progress.update(p); };
    kiln::tune::Result r = kiln::tune::run(jobs[i].target, options);
    if (g_cancel.load()) {
      std::fputs("\n", stderr);
      std::cerr << "kiln tune: interrupted; nothing stored for " << jobs[i].target.text() << "\n";
      if (!results.empty())
        json ? print_json(with_peers(results, jobs, false)) : print_table(with_peers(results, jobs, false));
      return 130;
    }
    progress.finish(r);
    results.push_back(std::move(r));
  }
  const std::vector<Row> rows = with_peers(std::move(results), jobs, true);
  json ? print_json(rows) : print_table(rows);
  return 0;
}
