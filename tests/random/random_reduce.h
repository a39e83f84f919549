// Reductions in random programs: random dim subsets (negative too), keepdim,
// whole-tensor forms, softmax family, max with indices, and reduced values
// broadcast back over the tensor they came from (normalizations: what tier 1
// fuses into one row kernel when the dims include the last one).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "tests/random/generator.h"

namespace rprog {

// x - amax(x), x / (sum |x| + 1), (x - mean) * rsqrt(var + 1) over the last
// dim and any of the others (trailing dims, every dim, or batch norm's
// kind: dims 0, 2 and 3); for integers x - amax(x) and x * amin(x).
inline void op_row_normalize(Program& p) {
  Entry e = p.pick();
  const Shape& s = e.ref.shape;
  const int nd = static_cast<int>(s.size());
  if (nd == 0 || kref::numel(s) == 0) return;
  std::vector<std::int64_t> dims;
  for (int d = 0; d + 1 < nd; ++d)
    if (p.rint(0, 1) == 1) dims.push_back(d);
  dims.push_back(nd - 1);
  const Ref a = e.ref.read();
  auto F = [&](Ref r) { return p.finish(std::move(r)); };
  auto stat = [&](auto f) { return kref::reduce(a, dims, true, f); };
  const std::string ds = kref::str(dims);
  const int kind = p.floating() ? p.rint(0, 2) : p.rint(0, 1);
  if (kind == 0) {
    return p.add_result(e.t - e.t.amax(dims, true), F(kref::zip(a, stat(kref::max_of), std::minus<>())),
                        e.name + " - " + e.name + ".amax(" + ds + ", keepdim)");
  }
  if (!p.floating()) {
    return p.add_result(e.t * e.t.amin(dims, true), kref::zip(a, stat(kref::min_of), std::multiplies<>()),
                        e.name + " * " + e.name + ".amin(" + ds + ", keepdim)");
  }
  if (kind == 1) {
    auto abs_sum = [](const std::vector<double>& g) {
      double t = 0;
      for (double x : g) t += std::abs(x);
      return t;
    };
    return p.add_result(e.t / (e.t.abs().sum(dims, true) + 1),
                        F(kref::zip(a, stat(abs_sum), [](double x, double t) { return x / (t + 1); })),
                        e.name + " / (" + e.name + ".abs().sum(" + ds + ", keepdim) + 1)");
  }
  const kiln::Tensor mean = e.t.mean(dims, true);
  const kiln::Tensor var = ((e.t - mean) * (e.t - mean)).mean(dims, true);
  const Ref m = stat(kref::mean_of);
  const Ref v = stat([](const std::vector<double>& g) { return kref::var_of(g, false); });
  return p.add_result((e.t - mean) * (var + 1).rsqrt(),
                      F(kref::zip3(a, m, v, [](double x, double mu, double var) { return (x - mu) / std::sqrt(var + 1); })),
                      "layer_norm(" + e.name + ", " + ds + ")");
}

inline void op_reduce(Program& p) {
  if (p.chance(0.25)) return op_row_normalize(p);
  Entry e = p.pick();
  const Shape& s = e.ref.shape;
  const int nd = static_cast<int>(s.size());
  Ref a = e.ref.read();
  auto F = [&](Ref r) { return p.finish(std::move(r)); };

  // a random non-empty dim subset (empty: all dims), written with random signs
  std::vector<std::int64_t> dims;
  for (int d = 0; d < nd; ++d)
    if (p.chance(0.5)) dims.push_back(p.chance(0.5) ? d : d - nd);
  const bool keep = p.chance(0.5);
  std::int64_t count = 1;
  bool empty_dim = false;
  for (int d = 0; d < nd; ++d) {
    bool reduced = dims.empty();
    for (auto x : dims) reduced |= kref::wrap(x, s.size()) == d;
    if (reduced) {
      count *= s[d];
      empty_dim |= s[d] == 0;
    }
  }
  const std::string ds = kref::str(dims) + (keep ? ", keepdim" : "");
  auto abs_sum = [](const std::vector<double>& g) {
    double t = 0;
    for (double x : g) t += std::abs(x);
    return t;
  };
  p.note_magnitude(max_abs(kref::reduce(a, dims, false, abs_sum)));

  const int kind = p.floating() ? p.rint(0, 10) : p.rint(0, 5);
  if (!p.floating()) {
    switch (kind) {
      case 0: return p.add_result(e.t.sum(dims, keep), kref::reduce(a, dims, keep, kref::sum_of), e.name + ".sum(" + ds + ")");
      case 1:
        if (empty_dim || count == 0) return;
        return p.add_result(e.t.amax(dims, keep), kref::reduce(a, dims, keep, kref::max_of), e.name + ".amax(" + ds + ")");
      case 2:
        if (empty_dim || count == 0) return;
        return p.add_result(kiln::amin(e.t, dims, keep), kref::reduce(a, dims, keep, kref::min_of),
                            "amin(" + e.name + ", " + ds + ")");
      default:
        break;
    }
  } else {
    switch (kind) {
      case 0: return p.add_result(e.t.sum(dims, keep), F(kref::reduce(a, dims, keep, kref::sum_of)), e.name + ".sum(" + ds + ")");
      case 1:
        if (count == 0) return;
        return p.add_result(e.t.mean(dims, keep), F(kref::reduce(a, dims, keep, kref::mean_of)), e.name + ".mean(" + ds + ")");
      case 2:
        if (empty_dim || count == 0) return;
        return p.add_result(e.t.amax(dims, keep), kref::reduce(a, dims, keep, kref::max_of), e.name + ".amax(" + ds + ")");
      case 3:
        if (empty_dim || count == 0) return;
        return p.add_result(e.t.amin(dims, keep), kref::reduce(a, dims, keep, kref::min_of), e.name + ".amin(" + ds + ")");
      case 4: {
        if (count < 2) return;
        bool unbiased = p.chance(0.5);
        auto v = [unbiased](const std::vector<double>& g) { return kref::var_of(g, unbiased); };
        if (p.chance(0.5))
          return p.add_result(e.t.var(dims, unbiased, keep), F(kref::reduce(a, dims, keep, v)), e.name + ".var(" + ds + ")");
        auto sd = [&](const std::vector<double>& g) { return std::sqrt(v(g)); };
        return p.add_result(kiln::std(e.t, dims, unbiased, keep), F(kref::reduce(a, dims, keep, sd)),
                            "std(" + e.name + ", " + ds + ")");
      }
      case 5:
        if (empty_dim || count == 0) return;
        return p.add_result(e.t.logsumexp(dims, keep), F(kref::reduce(a, dims, keep, kref::logsumexp_of)),
                            e.name + ".logsumexp(" + ds + ")");
      case 6:
      case 7: {
        if (nd == 0) return;
        std::int64_t d = p.rint(-nd, nd - 1);
        // softmax over an empty dim is covered by SoftmaxValues.EmptySoftmaxDim (frontend suite)
        if (s[kref::wrap(d, s.size())] == 0) return;
        bool log = kind == 7;
        return p.add_result(log ? e.t.log_softmax(d) : kiln::softmax(e.t, d), F(kref::softmax(a, d, log)),
                            e.name + (log ? ".log_softmax(" : ".softmax(") + std::to_string(d) + ")");
      }
      case 8: return p.add_result(e.t.sum(), F(kref::reduce(a, {}, false, kref::sum_of)), e.name + ".sum()");
      default:
        break;
    }
  }
  // prod over one dim, max/argmax along a dim
  if (nd == 0) return;
  const std::int64_t d = p.rint(-nd, nd - 1);
  const std::int64_t size = s[kref::wrap(d, s.size())];
  if (kind % 2 == 0) {
    if (size > 4 || max_abs(a) > (p.floating() ? 4 : 100)) return;
    return p.add_result(e.t.prod(d, keep), F(kref::reduce(a, {d}, keep, kref::prod_of)),
                        e.name + ".prod(" + std::to_string(d) + (keep ? ", keepdim)" : ")"));
  }
  if (size == 0) return;
  auto [values, indices] = e.t.max(d, keep);
  p.add_result(values, kref::reduce(a, {d}, keep, kref::max_of), e.name + ".max(" + std::to_string(d) + ").values");
  if (!p.floating()) {  // exact values: ties resolve identically (first index)
    p.add_result(indices, kref::reduce(a, {d}, keep, kref::argmax_of), e.name + ".max(" + std::to_string(d) + ").indices");
    p.add_result(e.t.argmin(d, keep), kref::reduce(a, {d}, keep, kref::argmin_of),
                 e.name + ".argmin(" + std::to_string(d) + ")");
  }
}

}  // namespace rprog
