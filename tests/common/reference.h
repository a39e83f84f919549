// The obvious reference the frontend, random and thread suites compare kiln
// against: a row-major std::vector<double> with a shape, and plain loops for
// broadcasting elementwise ops, reductions, matmul and the shape ops.
// Nothing here is clever on purpose: each function is the definition.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace kref {

using Shape = std::vector<std::int64_t>;

inline std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

inline std::string str(const Shape& s) {
  std::ostringstream o;
  o << '[';
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  return o.str() + "]";
}

/// Row-major multi-index of flat position `flat` in `shape`.
inline Shape unravel(std::int64_t flat, const Shape& shape) {
  Shape idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return idx;
}

inline std::int64_t ravel(const Shape& idx, const Shape& shape) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

inline int wrap(std::int64_t dim, std::size_t ndim) {
  return static_cast<int>(dim < 0 ? dim + static_cast<std::int64_t>(ndim) : dim);
}

struct Ref {
  Shape shape;
  std::vector<double> v;

  Ref() = default;
  Ref(Shape s, std::vector<double> values) : shape(std::move(s)), v(std::move(values)) {
    EXPECT_EQ(static_cast<std::int64_t>(v.size()), kref::numel(shape)) << "kref::Ref built with a wrong value count";
  }
  static Ref filled(Shape s, double x) { return Ref(s, std::vector<double>(kref::numel(s), x)); }
  /// start, start + step, ... in row-major order.
  static Ref iota(Shape s, double start = 0, double step = 1) {
    std::vector<double> v(kref::numel(s));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<double>(i);
    return Ref(s, v);
  }
  std::int64_t numel() const { return static_cast<std::int64_t>(v.size()); }
  double at(const Shape& idx) const { return v[ravel(idx, shape)]; }
  Ref reshape(Shape s) const { return Ref(std::move(s), v); }
};

/// A kiln tensor holding `r`'s values, of `dtype`.
inline kiln::Tensor make(const Ref& r, kiln::ScalarType dtype = kiln::kFloat64) {
  return kiln::tensor(r.v, kiln::TensorOptions(dtype)).reshape(r.shape);
}

/// The values of `t` as a Ref (a materialization point).
/// Seeded values exact in every dtype: uniform integers in [lo, hi] times
/// `step` (0.5 gives halves, 1 integers), so float sums and products stay exact.
inline Ref random_steps(const Shape& s, unsigned seed, int lo, int hi, double step) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  Ref r = Ref::filled(s, 0);
  for (double& x : r.v) x = d(gen) * step;
  return r;
}

inline Ref of(const kiln::Tensor& t) { return Ref(t.sizes().vec(), t.to_vector<double>()); }

/// What storing `x` in `dtype` gives (float rounding, truncation, bool).
inline double cast(double x, kiln::ScalarType dtype) {
  switch (dtype) {
    case kiln::kBool: return x != 0 ? 1.0 : 0.0;
    case kiln::kInt32: return static_cast<double>(static_cast<std::int32_t>(x));
    case kiln::kInt64: return static_cast<double>(static_cast<std::int64_t>(x));
    case kiln::kFloat32: return static_cast<double>(static_cast<float>(x));
    case kiln::kFloat64: return x;
  }
  return x;
}
inline Ref cast(Ref r, kiln::ScalarType dtype) {
  for (double& x : r.v) x = cast(x, dtype);
  return r;
}

// --- Broadcasting elementwise -------------------------------------------

inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EXPECT_TRUE(sa == sb || sa == 1 || sb == 1) << "kref: " << str(a) << " and " << str(b) << " do not broadcast";
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

/// x read at index `idx` of a broadcast shape (trailing dims aligned).
inline double bget(const Ref& x, const Shape& idx) {
  std::size_t lead = idx.size() - x.shape.size();
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < x.shape.size(); ++d) flat = flat * x.shape[d] + (x.shape[d] == 1 ? 0 : idx[lead + d]);
  return x.v[flat];
}

/// A Ref of shape `s` whose element at multi-index `idx` is f(idx).
template <class F>
Ref build(const Shape& s, F f) {
  Ref out = Ref::filled(s, 0);
  for (std::int64_t i = 0; i < out.numel(); ++i) out.v[i] = f(unravel(i, s));
  return out;
}

template <class F>
Ref map(const Ref& x, F f) {
  Ref out = x;
  for (double& e : out.v) e = f(e);
  return out;
}

template <class F>
Ref zip(const Ref& a, const Ref& b, F f) {
  return build(broadcast_shapes(a.shape, b.shape), [&](const Shape& i) { return f(bget(a, i), bget(b, i)); });
}

template <class F>
Ref zip3(const Ref& a, const Ref& b, const Ref& c, F f) {
  Shape s = broadcast_shapes(broadcast_shapes(a.shape, b.shape), c.shape);
  return build(s, [&](const Shape& i) { return f(bget(a, i), bget(b, i), bget(c, i)); });
}

inline Ref expand(const Ref& x, const Shape& s) {
  return build(s, [&](const Shape& i) { return bget(x, i); });
}

// --- Reductions -----------------------------------------------------------

/// Reduces `dims` (empty: all; negative wrap) with `f` over the reduced
/// elements in row-major order.
template <class F>
Ref reduce(const Ref& x, std::vector<std::int64_t> dims, bool keepdim, F f) {
  const std::size_t nd = x.shape.size();
  std::vector<bool> red(nd, dims.empty());
  for (auto d : dims) red[wrap(d, nd)] = true;
  Shape out_shape, kept_shape;
  for (std::size_t d = 0; d < nd; ++d) {
    if (!red[d]) out_shape.push_back(x.shape[d]);
    else if (keepdim) out_shape.push_back(1);
    kept_shape.push_back(red[d] ? 1 : x.shape[d]);
  }
  std::vector<std::vector<double>> groups(numel(kept_shape));
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    Shape idx = unravel(i, x.shape);
    for (std::size_t d = 0; d < nd; ++d)
      if (red[d]) idx[d] = 0;
    groups[ravel(idx, kept_shape)].push_back(x.v[i]);
  }
  std::vector<double> out;
  for (auto& g : groups) out.push_back(f(g));
  return Ref(out_shape, out);
}

inline double sum_of(const std::vector<double>& g) { return std::accumulate(g.begin(), g.end(), 0.0); }
inline double mean_of(const std::vector<double>& g) { return sum_of(g) / static_cast<double>(g.size()); }
inline double prod_of(const std::vector<double>& g) {
  return std::accumulate(g.begin(), g.end(), 1.0, std::multiplies<>());
}
/// max/min propagating NaN, as LibTorch's max/amax.
inline double extreme_of(const std::vector<double>& g, bool want_max) {
  double m = want_max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  for (double e : g) {
    if (std::isnan(e) || std::isnan(m)) return std::numeric_limits<double>::quiet_NaN();
    m = want_max ? std::max(m, e) : std::min(m, e);
  }
  return m;
}
inline double max_of(const std::vector<double>& g) { return extreme_of(g, true); }
inline double min_of(const std::vector<double>& g) { return extreme_of(g, false); }
/// Index of the first maximum (minimum); the first NaN counts as both, as in LibTorch.
inline double arg_extreme_of(const std::vector<double>& g, bool want_max) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < g.size() && !std::isnan(g[best]); ++i)
    if (std::isnan(g[i]) || (want_max ? g[i] > g[best] : g[i] < g[best])) best = i;
  return static_cast<double>(best);
}
inline double argmax_of(const std::vector<double>& g) { return arg_extreme_of(g, true); }
inline double argmin_of(const std::vector<double>& g) { return arg_extreme_of(g, false); }
inline double var_of(const std::vector<double>& g, bool unbiased) {
  double m = mean_of(g), ss = 0;
  for (double e : g) ss += (e - m) * (e - m);
  return ss / (static_cast<double>(g.size()) - (unbiased ? 1.0 : 0.0));
}
inline double logsumexp_of(const std::vector<double>& g) {
  double m = max_of(g);
  if (std::isinf(m)) return m;
  double s = 0;
  for (double e : g) s += std::exp(e - m);
  return m + std::log(s);
}

inline Ref softmax(const Ref& x, std::int64_t dim, bool log = false) {
  int d = wrap(dim, x.shape.size());
  Ref out = x;
  Ref lse = reduce(x, {d}, true, logsumexp_of);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    Shape idx = unravel(i, x.shape);
    idx[d] = 0;
    double l = x.v[i] - lse.at(idx);
    out.v[i] = log ? l : std::exp(l);
  }
  return out;
}

// --- Shape ops (copies: the reference has no aliasing) -----------------------

inline Ref permute(const Ref& x, const Shape& dims) {
  Shape s;
  for (auto d : dims) s.push_back(x.shape[wrap(d, x.shape.size())]);
  return build(s, [&](const Shape& idx) {
    Shape src(x.shape.size());
    for (std::size_t k = 0; k < dims.size(); ++k) src[wrap(dims[k], x.shape.size())] = idx[k];
    return x.at(src);
  });
}

inline Ref transpose(const Ref& x, std::int64_t a, std::int64_t b) {
  Shape dims(x.shape.size());
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[wrap(a, dims.size())], dims[wrap(b, dims.size())]);
  return permute(x, dims);
}

/// Elements start, start + step, ... < end of `dim` (start/end in range).
inline Ref slice(const Ref& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1) {
  int d = wrap(dim, x.shape.size());
  Shape s = x.shape;
  s[d] = end > start ? (end - start + step - 1) / step : 0;
  return build(s, [&](Shape idx) {
    idx[d] = start + idx[d] * step;
    return x.at(idx);
  });
}

inline Ref select(const Ref& x, std::int64_t dim, std::int64_t index) {
  int d = wrap(dim, x.shape.size());
  Ref sl = slice(x, d, index, index + 1);
  Shape s = x.shape;
  s.erase(s.begin() + d);
  return sl.reshape(s);
}

inline Ref index_select(const Ref& x, std::int64_t dim, const std::vector<std::int64_t>& index) {
  int d = wrap(dim, x.shape.size());
  Shape s = x.shape;
  s[d] = static_cast<std::int64_t>(index.size());
  return build(s, [&](Shape idx) {
    idx[d] = index[idx[d]];
    return x.at(idx);
  });
}

/// f applied to each line of x along `dim` (negative wraps; a zero-dim x is
/// one line of one element): f maps the line's values, in order, to the
/// output's line, which may be shorter (topk).
template <class F>
Ref along(const Ref& x, std::int64_t dim, F f) {
  if (x.shape.empty()) return Ref({}, f(x.v));
  const int d = wrap(dim, x.shape.size());
  Shape lines = x.shape, out_shape = x.shape;
  lines[d] = 1;
  out_shape[d] = static_cast<std::int64_t>(f(std::vector<double>(x.shape[d])).size());
  Ref out = Ref::filled(out_shape, 0);
  for (std::int64_t l = 0; l < numel(lines); ++l) {
    Shape idx = unravel(l, lines);
    std::vector<double> line;
    for (idx[d] = 0; idx[d] < x.shape[d]; ++idx[d]) line.push_back(x.at(idx));
    const std::vector<double> r = f(line);
    for (idx[d] = 0; idx[d] < out_shape[d]; ++idx[d]) out.v[ravel(idx, out_shape)] = r[idx[d]];
  }
  return out;
}
/// Running sums of a line.
inline std::vector<double> cumsum_of(const std::vector<double>& g) {
  std::vector<double> out(g.size());
  std::partial_sum(g.begin(), g.end(), out.begin());
  return out;
}
/// Running products of a line.
inline std::vector<double> cumprod_of(const std::vector<double>& g) {
  std::vector<double> out(g.size());
  std::partial_sum(g.begin(), g.end(), out.begin(), std::multiplies<>());
  return out;
}
/// The positions that sort a line with std::stable_sort, NaN greater than
/// every number (LibTorch's order), ascending or descending.
inline std::vector<double> argsort_of(const std::vector<double>& g, bool descending) {
  std::vector<std::size_t> order(g.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto before = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return descending ? before(g[b], g[a]) : before(g[a], g[b]);
  });
  return std::vector<double>(order.begin(), order.end());
}
/// out[i][j] = x[index[i][j]][j] for dim 0, and so on.
inline Ref gather(const Ref& x, std::int64_t dim, const Ref& index) {
  int d = wrap(dim, x.shape.size());
  Ref out = Ref::filled(index.shape, 0);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, index.shape);
    idx[d] = static_cast<std::int64_t>(index.v[i]);
    out.v[i] = x.at(idx);
  }
  return out;
}

inline Ref cat(const std::vector<Ref>& xs, std::int64_t dim) {
  int d = wrap(dim, xs[0].shape.size());
  Shape s = xs[0].shape;
  s[d] = 0;
  for (auto& x : xs) s[d] += x.shape[d];
  Ref out = Ref::filled(s, 0);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, s);
    std::size_t k = 0;
    while (idx[d] >= xs[k].shape[d]) idx[d] -= xs[k++].shape[d];
    out.v[i] = xs[k].at(idx);
  }
  return out;
}

inline Ref stack(const std::vector<Ref>& xs, std::int64_t dim) {
  int d = wrap(dim, xs[0].shape.size() + 1);
  std::vector<Ref> un;
  for (auto& x : xs) {
    Shape s = x.shape;
    s.insert(s.begin() + d, 1);
    un.push_back(x.reshape(s));
  }
  return cat(un, d);
}

// --- Linear algebra ----------------------------------------------------------

/// LibTorch's matmul: 1-D operands become matrices and lose the added dim again.
inline Ref matmul(const Ref& a0, const Ref& b0) {
  Ref a = a0, b = b0;
  bool a1 = a.shape.size() == 1, b1 = b.shape.size() == 1;
  if (a1) a = a.reshape({1, a.shape[0]});
  if (b1) b = b.reshape({b.shape[0], 1});
  std::int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
  EXPECT_EQ(k, b.shape[b.shape.size() - 2]) << "kref::matmul inner dims";
  Shape ba(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  Shape s = batch;
  s.push_back(m);
  s.push_back(n);
  Ref out = Ref::filled(s, 0);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    Shape idx = unravel(i, s);
    Shape ia(idx.begin(), idx.end() - 2);
    double acc = 0;
    for (std::int64_t p = 0; p < k; ++p) {
      Shape x = ia, y = ia;
      x.push_back(idx[idx.size() - 2]);
      x.push_back(p);
      y.push_back(p);
      y.push_back(idx.back());
      acc += bget(a, x) * bget(b, y);
    }
    out.v[i] = acc;
  }
  Shape final_shape = batch;
  if (!a1) final_shape.push_back(m);
  if (!b1) final_shape.push_back(n);
  return out.reshape(final_shape);
}

// --- Comparison -------------------------------------------------------------

struct Tol {
  double rtol = 0;
  double atol = 0;
};
inline constexpr Tol kExact{0, 0};
/// float32 results against a float64 reference.
inline constexpr Tol kFloatTol{1e-5, 1e-6};
inline constexpr Tol kDoubleTol{1e-12, 1e-12};
inline Tol tol_for(kiln::ScalarType t) {
  return t == kiln::kFloat32 ? kFloatTol : t == kiln::kFloat64 ? kDoubleTol : kExact;
}

inline bool near(double got, double want, Tol tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= tol.atol + tol.rtol * std::abs(want);
}

/// Shape equal and every element within `tol` (NaN matches NaN, inf matches the same inf).
inline ::testing::AssertionResult close(const Ref& got, const Ref& want, Tol tol) {
  if (got.shape != want.shape)
    return ::testing::AssertionFailure() << "shape " << str(got.shape) << ", expected " << str(want.shape);
  int bad = 0;
  std::ostringstream msg;
  for (std::int64_t i = 0; i < want.numel(); ++i) {
    if (near(got.v[i], want.v[i], tol)) continue;
    if (bad++ < 5)
      msg << "\n  at " << str(unravel(i, want.shape)) << ": got " << got.v[i] << ", expected " << want.v[i];
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.numel() << " elements differ (rtol " << tol.rtol
                                       << ", atol " << tol.atol << "), shape " << str(want.shape) << msg.str();
}

inline ::testing::AssertionResult close(const kiln::Tensor& got, const Ref& want, Tol tol) {
  if (!got.defined()) return ::testing::AssertionFailure() << "undefined tensor";
  return close(of(got), want, tol);
}
/// Exact comparison with values written in the test.
inline ::testing::AssertionResult equals(const kiln::Tensor& got, const Shape& shape, std::vector<double> values) {
  return close(got, Ref(shape, std::move(values)), kExact);
}

}  // namespace kref
