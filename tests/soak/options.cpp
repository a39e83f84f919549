#include "options.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace soak {
namespace {

std::string str(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The value after flag argv[i]: a number in [min, max], whole if `whole`.
double number_after(int argc, char** argv, int& i, double min, double max, bool whole) {
  const std::string flag = argv[i];
  if (++i >= argc) throw UsageError(flag + ": missing value");
  char* end = nullptr;
  const double v = std::strtod(argv[i], &end);
  if (end == argv[i] || *end != '\0' || !(v >= min && v <= max) || (whole && v != std::floor(v)))
    throw UsageError(flag + " " + argv[i] + ": expected " + (whole ? "a whole number" : "a number") + " in [" +
                     str(min) + ", " + str(max) + "]");
  return v;
}

std::size_t count_after(int argc, char** argv, int& i, double min, double max) {
  return static_cast<std::size_t>(number_after(argc, argv, i, min, max, true));
}

double seconds_after(int argc, char** argv, int& i, double min) { return number_after(argc, argv, i, min, 1e6, false); }

}  // namespace

const char* const kUsage =
    "usage: kiln_soak [--seconds N] [--report-every S] [--hot K] [--max-keys M] [--max-kernels M]\n"
    "                 [--seed N] [--check]\n";

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--seconds") o.seconds = seconds_after(argc, argv, i, 1);
    else if (a == "--report-every") o.report_every = seconds_after(argc, argv, i, 0.1);
    else if (a == "--hot") o.hot = count_after(argc, argv, i, 1, 64);
    else if (a == "--max-keys") o.max_keys = count_after(argc, argv, i, 8, 1e9);
    else if (a == "--max-kernels") o.max_kernels = count_after(argc, argv, i, 8, 1e9);
    else if (a == "--seed") o.seed = count_after(argc, argv, i, 0, 1e15);
    else if (a == "--check") o.check = true;
    else throw UsageError(std::string(a) + ": unknown argument");
  }
  if (o.report_every > o.seconds)
    throw UsageError("--report-every " + str(o.report_every) + " is longer than --seconds " + str(o.seconds));
  return o;
}

}  // namespace soak
