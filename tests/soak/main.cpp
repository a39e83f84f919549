// kiln_soak: the JIT under a long stream of op structures it has never seen.
// Each iteration runs a new random elementwise chain 3 times and never
// again (a cold key); every few iterations each of --hot fixed chains runs
// once (hot keys), checked against a double reference. Every --report-every
// seconds one line says what the process and the JIT hold. The bounds
// (KILN_JIT_MAX_KEYS, KILN_JIT_MAX_KERNELS) should keep memory flat while
// the hot chains stay compiled; --check turns that into exit status 0 or 1
// (tests/soak/verdict.h). docs: tests/soak/README.md.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <kiln/kiln.h>

#include "chain.h"
#include "options.h"
#include "process_memory.h"
#include "run_tier.h"
#include "verdict.h"

namespace {

using Clock = std::chrono::steady_clock;

// Cold iterations between two runs of the hot chains.
constexpr int kColdPerHot = 4;
// Runs of each new chain: its second run gives its key a JIT record.
constexpr int kColdRuns = 3;
// Allowed float error, relative to the largest magnitude on the chain.
constexpr double kTolerance = 1e-4;

struct HotStructure {
  soak::Chain chain;
  kiln::Tensor input;
  soak::Chain::Reference expected;
};

// Runs of the hot chains within one report interval, by tier. Runs of a
// chain whose kernel the JIT demoted (tier 0 measured faster) are the JIT's
// choice, not a chain the bounds lost: the share leaves them out.
struct HotRuns {
  std::uint64_t runs = 0;
  std::uint64_t compiled = 0;
  std::uint64_t demoted = 0;
  double compiled_share() const {
    const std::uint64_t kept = runs - demoted;
    return kept ? static_cast<double>(compiled) / static_cast<double>(kept) : 0.0;
  }
};

std::vector<HotStructure> make_hot(std::size_t count, std::mt19937_64& rng) {
  std::vector<HotStructure> hot;
  for (std::size_t i = 0; i < count; ++i) {
    soak::Chain chain = soak::checkable_chain(rng);
    kiln::Tensor input = kiln::randn(chain.shape);
    const double x = input.flatten().select(0, chain.read_at).item<float>();
    hot.push_back({chain, input, chain.reference(x)});
  }
  return hot;
}

// Runs each hot chain once; false (after saying why) on a wrong value.
bool run_hot(const std::vector<HotStructure>& hot, HotRuns& interval) {
  for (const HotStructure& h : hot) {
    float got = 0;
    const soak::RunTier tier = soak::run_and_classify([&] { got = h.chain.run(h.input); });
    const double err = std::fabs(static_cast<double>(got) - h.expected.value);
    if (!(err <= kTolerance * (1 + h.expected.scale))) {
      std::printf("MISMATCH %s: got %.9g, reference %.9g (error %.3g, bound %.3g)\n", h.chain.describe().c_str(),
                  static_cast<double>(got), h.expected.value, err, kTolerance * (1 + h.expected.scale));
      return false;
    }
    ++interval.runs;
    interval.compiled += tier == soak::RunTier::Compiled;
    interval.demoted += tier == soak::RunTier::Demoted;
  }
  return true;
}

void run_cold(std::mt19937_64& rng) {
  const soak::Chain chain = soak::random_chain(rng);
  const kiln::Tensor input = kiln::randn(chain.shape);
  kiln::sync();  // the input made apart, so all runs of the chain share one key
  for (int i = 0; i < kColdRuns; ++i) (void)chain.run(input);
}

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void print_header() {
  std::printf("%8s %8s %8s %8s %10s %10s %8s %7s %9s %8s %8s %10s %10s %7s %8s\n", "t_s", "rss_MiB", "heap_MiB",
              "pool_MiB", "chains", "keys", "kernels", "queued", "compiled", "dropped", "demoted", "keys_ev",
              "kernels_ev", "hot_t1%", "hot_dem%");
}

void print_line(double elapsed, std::uint64_t rss, std::uint64_t chains, const HotRuns& hot) {
  const kiln::Stats s = kiln::stats();
  const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  const double demoted = hot.runs ? 100.0 * static_cast<double>(hot.demoted) / static_cast<double>(hot.runs) : 0.0;
  std::printf("%8.1f %8.1f %8.1f %8.1f %10llu %10llu %8llu %7llu %9llu %8llu %8llu %10llu %10llu %7.1f %8.1f\n",
              elapsed, mib(rss), mib(soak::heap_bytes()), mib(s.live_bytes + s.pooled_bytes), u(chains),
              u(s.distinct_keys), u(s.jit.kernels_resident), u(s.jit.compiles_queued), u(s.jit.compiles_done),
              u(s.jit.compiles_dropped), u(s.jit.demoted), u(s.jit.keys_evicted), u(s.jit.kernels_evicted),
              100 * hot.compiled_share(), demoted);
  std::fflush(stdout);
}

int soak_run(const soak::Options& o) {
  if (o.max_keys) kiln::jit::set_max_keys(o.max_keys);
  if (o.max_kernels) kiln::jit::set_max_kernels(o.max_kernels);
  std::mt19937_64 rng(o.seed);
  kiln::manual_seed(o.seed);
  const std::vector<HotStructure> hot = make_hot(o.hot, rng);

  soak::RunSummary summary;
  HotRuns interval;
  std::uint64_t chains = 0;
  double next_report = o.report_every;
  const Clock::time_point start = Clock::now();
  print_header();
  for (std::uint64_t i = 0;; ++i) {
    run_cold(rng);
    ++chains;
    if (i % kColdPerHot == 0 && !run_hot(hot, interval)) return 1;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const bool done = elapsed >= o.seconds;
    if (!summary.rss_after_warmup && elapsed >= o.seconds / 3) summary.rss_after_warmup = soak::rss_bytes();
    if (done || elapsed >= next_report) {
      summary.rss_at_end = soak::rss_bytes();
      summary.hot_compiled_share = interval.compiled_share();
      print_line(elapsed, summary.rss_at_end, chains, interval);
      interval = {};
      while (next_report <= elapsed) next_report += o.report_every;
    }
    if (done) break;
  }
  if (!o.check) return 0;
  const std::vector<std::string> why = soak::failures(summary);
  std::printf("RSS after warm-up %.1f MiB, at the end %.1f MiB; hot structures compiled %.1f%% at the end\n",
              mib(summary.rss_after_warmup), mib(summary.rss_at_end), 100 * summary.hot_compiled_share);
  for (const std::string& w : why) std::printf("FAIL: %s\n", w.c_str());
  if (why.empty()) std::printf("PASS\n");
  return why.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return soak_run(soak::parse_options(argc, argv));
  } catch (const soak::UsageError& e) {
    std::fprintf(stderr, "kiln_soak: %s\n%s", e.what(), soak::kUsage);
    return 2;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln_soak: %s\n", e.what());
    return 1;
  }
}
