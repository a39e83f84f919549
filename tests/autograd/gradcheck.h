// gradcheck in float64: the analytic gradient of a function (kiln's
// autograd) against central differences of the function itself, for a
// random weighting of its outputs. Inputs are rebuilt from plain numbers
// for every evaluation, so nothing but the function's own ops is measured.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <vector>

#include <kiln/kiln.h>

namespace gradcheck {

/// One input: its values and shape, and how to present it to the function
/// (a transposed copy gives a non-contiguous view with the same values).
struct Input {
  std::vector<double> values;
  std::vector<std::int64_t> shape;
  bool transposed = false;  // 2-D only: stored as its transpose, then .t()
  bool differentiable = true;
};

using Fn = std::function<kiln::Tensor(const std::vector<kiln::Tensor>&)>;

inline std::vector<double> random_values(std::int64_t n, std::uint32_t seed, double lo = -1.5, double hi = 1.5) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = d(gen);
  return v;
}

inline std::int64_t numel(const std::vector<std::int64_t>& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

/// A leaf tensor (requiring grad when differentiable) holding `in`.
inline kiln::Tensor make(const Input& in, bool requires_grad) {
  kiln::Tensor t;
  if (in.transposed) {
    std::int64_t r = in.shape[0], c = in.shape[1];
    std::vector<double> tv(in.values.size());
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) tv[j * r + i] = in.values[i * c + j];
    kiln::Tensor base = kiln::tensor(tv, kiln::kFloat64).reshape({c, r});
    if (requires_grad) base.requires_grad_(true);
    return base.t();  // a view of a leaf: gradients reach base, read through the view
  }
  t = kiln::tensor(in.values, kiln::kFloat64).reshape(in.shape);
  if (requires_grad) t = t.detach().requires_grad_(true);
  return t;
}

/// The scalar the check differentiates: sum(fn(x) * weights).
inline double weighted(const Fn& fn, const std::vector<Input>& inputs, const std::vector<double>& weights) {
  kiln::NoGradGuard no_grad;
  std::vector<kiln::Tensor> xs;
  for (const Input& in : inputs) xs.push_back(make(in, false));
  kiln::Tensor out = fn(xs);
  std::vector<double> v = out.to(kiln::kFloat64).to_vector<double>();
  double s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i] * weights[i];
  return s;
}

/// Checks every differentiable input's gradient element by element.
inline ::testing::AssertionResult check(const Fn& fn, std::vector<Input> inputs, double eps = 1e-6,
                                        double atol = 1e-5, double rtol = 1e-4) {
  std::vector<kiln::Tensor> xs;
  std::vector<kiln::Tensor> leaves;
  for (const Input& in : inputs) {
    xs.push_back(make(in, in.differentiable));
    if (in.differentiable) leaves.push_back(xs.back());
  }
  kiln::Tensor out = fn(xs);
  std::vector<double> weights = random_values(out.numel(), 7, 0.5, 1.5);
  if (leaves.empty()) return ::testing::AssertionSuccess();
  if (!out.requires_grad()) return ::testing::AssertionFailure() << "the output does not require grad";
  kiln::Tensor w = kiln::tensor(weights, kiln::kFloat64).reshape(out.sizes()).to(out.dtype());
  auto grads = kiln::autograd::grad({(out * w).sum()}, leaves, {}, std::nullopt, false, true);
  std::size_t g = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].differentiable) continue;
    std::vector<double> analytic = grads[g].defined() ? grads[g].to_vector<double>()
                                                      : std::vector<double>(inputs[k].values.size(), 0.0);
    ++g;
    if (analytic.size() != inputs[k].values.size())
      return ::testing::AssertionFailure() << "input " << k << ": gradient has " << analytic.size()
                                           << " elements, input " << inputs[k].values.size();
    for (std::size_t i = 0; i < inputs[k].values.size(); ++i) {
      double saved = inputs[k].values[i];
      inputs[k].values[i] = saved + eps;
      double hi = weighted(fn, inputs, weights);
      inputs[k].values[i] = saved - eps;
      double lo = weighted(fn, inputs, weights);
      inputs[k].values[i] = saved;
      double numeric = (hi - lo) / (2 * eps);
      if (std::abs(numeric - analytic[i]) > atol + rtol * std::abs(numeric))
        return ::testing::AssertionFailure() << "input " << k << " element " << i << ": analytic " << analytic[i]
                                             << ", numeric " << numeric;
    }
  }
  return ::testing::AssertionSuccess();
}

/// Second order: the gradient of <grad(fn), v> (built with create_graph)
/// against central differences of the first-order analytic gradient.
inline ::testing::AssertionResult check_second_order(const Fn& fn, std::vector<Input> inputs, double eps = 1e-6,
                                                     double atol = 1e-4, double rtol = 1e-3) {
  Fn first = [&fn](const std::vector<kiln::Tensor>& xs) {
    kiln::AutoGradMode on(true);
    std::vector<kiln::Tensor> leaves;
    std::vector<kiln::Tensor> ins;
    for (const kiln::Tensor& x : xs) {
      kiln::Tensor leaf = x.requires_grad() ? x : x.detach().requires_grad_(true);
      ins.push_back(leaf);
      leaves.push_back(leaf);
    }
    kiln::Tensor out = fn(ins);
    std::vector<double> weights = random_values(out.numel(), 11, 0.5, 1.5);
    kiln::Tensor w = kiln::tensor(weights, kiln::kFloat64).reshape(out.sizes()).to(out.dtype());
    auto gs = kiln::autograd::grad({(out * w).sum()}, {leaves[0]}, {}, std::nullopt, true, true);
    return gs[0].defined() ? gs[0] : kiln::zeros_like(leaves[0]);
  };
  return check(first, std::move(inputs), eps, atol, rtol);
}

}  // namespace gradcheck
