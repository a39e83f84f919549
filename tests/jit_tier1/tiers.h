// Running the same program on tier 0 (the interpreter) and tier 1 (compiled,
// in the foreground, every segment hot at its first run), and comparing.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace tiers {

using Program = std::function<std::vector<kiln::Tensor>()>;

struct Outputs {
  std::vector<std::vector<double>> values;
  std::vector<kiln::ScalarType> dtypes;
};

inline Outputs evaluate(const Program& program) {
  Outputs out;
  for (const kiln::Tensor& t : program()) {
    out.values.push_back(t.to_vector<double>());
    out.dtypes.push_back(t.dtype());
  }
  return out;
}

/// Every program compiled in the foreground once it ran `hot_threshold`
/// times (default: at its first run).
class Tier1Scope {
 public:
  explicit Tier1Scope(std::int64_t hot_threshold = 1) {
    kiln::jit::set_enabled(true);
    kiln::jit::set_compile_sync(true);
    kiln::jit::set_hot_threshold(hot_threshold);
  }
  ~Tier1Scope() {
    kiln::jit::set_compile_sync(false);
    kiln::jit::set_enabled(false);
  }
};

/// Floating-point results may differ by the vector math library's error
/// (libmvec: at most 4 ulp) and by contraction into FMAs, relative to each
/// element, with a floor relative to the output's largest magnitude where
/// a difference like 1 + tanh(x) cancels; integer and bool results must be
/// equal.
inline ::testing::AssertionResult agree(const Outputs& t0, const Outputs& t1, double rel = 1e-5) {
  if (t0.values.size() != t1.values.size()) return ::testing::AssertionFailure() << "different output counts";
  for (std::size_t k = 0; k < t0.values.size(); ++k) {
    if (t0.dtypes[k] != t1.dtypes[k])
      return ::testing::AssertionFailure() << "output " << k << ": dtype " << t0.dtypes[k] << " vs " << t1.dtypes[k];
    const auto &a = t0.values[k], &b = t1.values[k];
    if (a.size() != b.size()) return ::testing::AssertionFailure() << "output " << k << ": sizes differ";
    bool exact = !kiln::is_floating_point(t0.dtypes[k]);
    double largest = 1;
    for (double x : a)
      if (std::isfinite(x)) largest = std::max(largest, std::abs(x));
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i]) && std::isnan(b[i])) continue;
      if (a[i] == b[i]) continue;
      double tol = exact ? 0 : rel * std::abs(a[i]) + 0.1 * rel * largest;
      if (!(std::abs(a[i] - b[i]) <= tol))
        return ::testing::AssertionFailure() << "output " << k << " element " << i << ": tier 0 " << a[i]
                                             << ", tier 1 " << b[i];
    }
  }
  return ::testing::AssertionSuccess();
}

/// Runs `program` on both tiers; fails unless they agree and tier 1 really
/// ran compiled code.
inline ::testing::AssertionResult tiers_agree(const Program& program, double rel = 1e-5) {
  kiln::jit::set_enabled(false);
  Outputs t0 = evaluate(program);
  std::uint64_t compiled_before = kiln::stats().jit.group_runs_compiled;
  Outputs t1;
  {
    Tier1Scope scope;
    t1 = evaluate(program);
  }
  if (kiln::stats().jit.group_runs_compiled == compiled_before)
    return ::testing::AssertionFailure() << "tier 1 ran no compiled kernel";
  return agree(t0, t1, rel);
}

}  // namespace tiers
