// A kiln program that runs ops until a signal ends it, for the signal tests
// (tests/tools/termination_signal_test.cpp). The timeline comes from
// KILN_TRACE_EVENTS (opened when libkiln loads); the stats snapshot from
// kiln::set_stats_path(argv[1]). With `--own-handler` it first installs a
// SIGTERM handler of its own that exits with status 42, which kiln must call.
// It prints "running" once ops have run and a snapshot was written.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <kiln/kiln.h>

namespace {

void own_handler(int) { ::_exit(42); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (argc > 2 && std::string(argv[2]) == "--own-handler") ::signal(SIGTERM, own_handler);
  kiln::set_stats_path(argv[1], 5);
  kiln::Tensor x = kiln::ones({64});
  for (long i = 0;; ++i) {
    (void)((x * 2 + 1).relu() * x).sum().item<float>();
    if (i == 100) {
      kiln::write_stats(argv[1]);
      std::printf("running\n");
      std::fflush(stdout);
    }
  }
}
