// Reduction kernels: sum, prod, amax, amin, argmax, argmin over the input
// dims whose bit is set in attr i0 (attr i1 = keepdim; the output geometry
// already has the right shape either way).
#include <limits>

#include "jit/kernels/reduce_loop.h"
#include "jit/kernels/wrapping.h"

namespace kiln::jit::kernels {

ReductionShape reduction_shape(const KernelCall& call) {
  const trace::Geometry& in = call.in[0].geo;
  const trace::Geometry& out = call.out.geo;
  const std::uint64_t mask = static_cast<std::uint64_t>(call.node->attrs.i[0]);
  const bool keepdim = call.node->attrs.i[1] != 0;
  const std::int64_t in_size = static_cast<std::int64_t>(element_size(call.in[0].dtype));
  const std::int64_t out_size = static_cast<std::int64_t>(element_size(call.out.dtype));
  ReductionShape s;
  s.kept.operands = 2;
  s.reduced.operands = 1;
  for (int d = 0, out_dim = 0; d < in.ndim; ++d) {
    if (mask >> d & 1) {
      s.reduced.sizes[s.reduced.ndim] = in.sizes[d];
      s.reduced.strides[0][s.reduced.ndim++] = in.strides[d] * in_size;
      if (keepdim) ++out_dim;
      continue;
    }
    KILN_CHECK(out_dim < out.ndim && out.sizes[out_dim] == in.sizes[d], "reduction output ",
               trace::shape_str(out.shape()), " does not match input ", trace::shape_str(in.shape()));
    s.kept.sizes[s.kept.ndim] = in.sizes[d];
    s.kept.strides[0][s.kept.ndim] = out.strides[out_dim++] * out_size;
    s.kept.strides[1][s.kept.ndim++] = in.strides[d] * in_size;
  }
  s.kept.coalesce();
  s.reduced.coalesce();
  return s;
}

void store_as(ScalarType dtype, char* out, double value) {
  visit_dtype<kAllTypes>(dtype, "reduction", [&]<class T>() { *reinterpret_cast<T*>(out) = convert<T>(value); });
}
void store_as(ScalarType dtype, char* out, std::int64_t value) {
  visit_dtype<kAllTypes>(dtype, "reduction", [&]<class T>() { *reinterpret_cast<T*>(out) = convert<T>(value); });
}

namespace {

// Sum and prod fold in Acc: double for floating results (float32 sums
// accumulate in double), wrapping int64 for integral ones.
template <class Accumulator, bool Product>
struct Accumulate {
  using Acc = Accumulator;
  static Acc init() { return Acc(Product ? 1 : 0); }
  static void combine(Acc& a, Acc b) {
    if constexpr (std::is_floating_point_v<Acc>) a = Product ? a * b : a + b;
    else a = Product ? wrapping_mul(a, b) : wrapping_add(a, b);
  }
  template <class T>
  static void step(Acc& a, T v, std::int64_t) { combine(a, convert<Acc>(v)); }
  static Acc result(Acc a) { return a; }

  // Eight interleaved partial results break the dependency chain (and let
  // GCC vectorize); they combine in a fixed order, so results stay
  // deterministic.
  template <class T>
  static void fold_contiguous(Acc& a, const T* p, std::int64_t n) {
    constexpr int kLanes = 8;
    Acc lanes[kLanes];
    for (Acc& lane : lanes) lane = init();
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int l = 0; l < kLanes; ++l) combine(lanes[l], convert<Acc>(p[i + l]));
    for (; i < n; ++i) combine(lanes[0], convert<Acc>(p[i]));
    for (int width = kLanes / 2; width > 0; width /= 2)
      for (int l = 0; l < width; ++l) combine(lanes[l], lanes[l + width]);
    combine(a, lanes[0]);
  }
};

// NaN is the extreme: once the running value is NaN it stays.
template <class T, bool Max>
bool more_extreme(T candidate, T current) {
  if (candidate != candidate) return current == current;
  return Max ? candidate > current : candidate < current;
}

template <class T, bool Max>
struct Extreme {
  using Acc = T;
  static T init() {
    if constexpr (std::is_floating_point_v<T>)
      return Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else
      return Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  static void step(T& a, T v, std::int64_t) {
    if (more_extreme<T, Max>(v, a)) a = v;
  }
  static void combine(T& a, T b) { step(a, b, 0); }
  static T result(T a) { return a; }
};

// The first position of the extreme (strict comparison keeps the earlier).
template <class T, bool Max>
struct ArgExtreme {
  struct Acc {
    T value{};
    std::int64_t position = -1;
  };
  static Acc init() { return {}; }
  // Selects instead of branching: the outcome of comparing data is a coin
  // toss to the branch predictor (max-pool windows: 18 ns an output).
  static void step(Acc& a, T v, std::int64_t position) {
    const bool take = (a.position < 0) | more_extreme<T, Max>(v, a.value);
    a.value = take ? v : a.value;
    a.position = take ? position : a.position;
  }
  static void combine(Acc& a, const Acc& b) {
    if (b.position >= 0 && (a.position < 0 || more_extreme<T, Max>(b.value, a.value))) a = b;
  }
  static std::int64_t result(const Acc& a) { return a.position < 0 ? 0 : a.position; }
};

template <bool Product>
void accumulate(const KernelCall& c) {
  const char* op = trace::name(c.node->op);
  visit_dtype<kAllTypes>(c.in[0].dtype, op, [&]<class T>() {
    if (is_floating_point(c.node->dtype)) run_reduction<Accumulate<double, Product>, T>(c);
    else run_reduction<Accumulate<std::int64_t, Product>, T>(c);
  });
}

template <template <class, bool> class Reducer, bool Max>
void extreme(const KernelCall& c) {
  visit_dtype<kAllTypes>(c.in[0].dtype, trace::name(c.node->op),
                         [&]<class T>() { run_reduction<Reducer<T, Max>, T>(c); });
}

}  // namespace

void Sum(const KernelCall& c) { accumulate<false>(c); }
void Prod(const KernelCall& c) { accumulate<true>(c); }
void Amax(const KernelCall& c) { extreme<Extreme, true>(c); }
void Amin(const KernelCall& c) { extreme<Extreme, false>(c); }
void Argmax(const KernelCall& c) { extreme<ArgExtreme, true>(c); }
void Argmin(const KernelCall& c) { extreme<ArgExtreme, false>(c); }

}  // namespace kiln::jit::kernels
