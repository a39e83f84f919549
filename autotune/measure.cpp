// measure() and summarize(): see measure.h for why outliers are dropped.
#include "autotune/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace kiln::autotune {
namespace {

double median_of(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Timing summarize(std::vector<double> seconds) {
  if (seconds.empty()) throw std::invalid_argument("[autotune] summarize: no samples");
  const double median = median_of(seconds);
  std::vector<double> deviations;
  deviations.reserve(seconds.size());
  for (double s : seconds) deviations.push_back(std::abs(s - median));
  const double mad = std::max(median_of(deviations), 0.01 * median);
  const int taken = static_cast<int>(seconds.size());
  std::erase_if(seconds, [&](double s) { return s > median + 3 * mad; });
  const double kept_median = median_of(seconds);
  const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
  const double spread = kept_median > 0 ? (*hi - *lo) / kept_median : 0.0;
  return Timing{kept_median, spread, static_cast<int>(seconds.size()), taken};
}

Timing measure(const std::function<void()>& run, const MeasureOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.warmup; ++i) run();
  std::vector<double> samples;
  const int repetitions = std::max(options.repetitions, 1);
  samples.reserve(static_cast<std::size_t>(repetitions));
  for (int i = 0; i < repetitions; ++i) {
    const auto before = std::chrono::steady_clock::now();
    run();
    samples.push_back(seconds_since(before));
    if (seconds_since(start) >= options.max_seconds) break;
  }
  return summarize(std::move(samples));
}

}  // namespace kiln::autotune
