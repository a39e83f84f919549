#include "jit/tuning/background_tuning.h"

#include <cstdio>
#include <exception>

#include "jit/tier1/kernel_cache.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/jit_counters.h"

namespace kiln::jit::tuning {

void tune_in_background(std::function<void()> tuning) {
  profiler::add_tunes_in_flight(1);
  run_in_background([tuning = std::move(tuning)] {
    struct InFlight {
      ~InFlight() { profiler::add_tunes_in_flight(-1); }
    } in_flight;
    try {
      tuning();
    } catch (const std::exception& e) {
      // On the compile thread nothing would catch it: the kernel keeps what it runs.
      profiler::record_failure(std::string("online tuning: ") + e.what());
    }
  });
}

void note_tuned(const std::string& key, double default_seconds, double tuned_seconds, std::int64_t start_ns) {
  char detail[160];
  std::snprintf(detail, sizeof detail, "%s: %.3f -> %.3f ms", key.c_str(), default_seconds * 1e3, tuned_seconds * 1e3);
  profiler::count(profiler::JitEvent::Tuned);
  profiler::log_event({.kind = profiler::EventKind::Tuned, .detail = detail, .start_ns = start_ns,
                       .duration_ns = profiler::now_ns() - start_ns});
}

}  // namespace kiln::jit::tuning
