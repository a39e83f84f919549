// The soak program's command line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace soak {

struct Options {
  double seconds = 60;
  double report_every = 10;
  std::size_t hot = 4;           // hot structures, run every few iterations
  std::size_t max_keys = 0;      // 0: the library's bound (KILN_JIT_MAX_KEYS)
  std::size_t max_kernels = 0;   // 0: the library's bound (KILN_JIT_MAX_KERNELS)
  std::uint64_t seed = 1;
  bool check = false;
};

/// A command line the program cannot run; the message names the argument.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Throws UsageError on an unknown flag, a missing value or a value out of range.
Options parse_options(int argc, char** argv);

extern const char* const kUsage;

}  // namespace soak
