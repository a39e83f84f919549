// Checking one elementwise op against a plain loop, over several layouts of
// its operands: contiguous, strided input, strided output, broadcast grid,
// transposed input, scalar operand.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/jit/segment_builder.h"

namespace kiln::jit::testing {

template <class... T, class F>
void for_each_type(F&& f) {
  (f.template operator()<T>(), ...);
}

/// A spread of values of T, edge cases included (NaN, inf, -0, extremes).
template <class T>
std::vector<T> sample_values() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true, true, false, true};
  } else if constexpr (std::is_integral_v<T>) {
    return {0, 1, -1, 2, -3, 7, 100, -100, 12345, std::numeric_limits<T>::max(), std::numeric_limits<T>::min()};
  } else {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    return {T(0), T(-0.0), T(0.5), T(1), T(-1), T(2.5), T(-3.25), T(10), T(-7.5), T(1e-3), inf, -inf, nan};
  }
}

template <class T>
double tolerance_for() {
  if constexpr (std::is_same_v<T, float>) return 2e-6;
  else if constexpr (std::is_same_v<T, double>) return 1e-12;
  else return 0;
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  else return std::to_string(v);
}

/// out = op(x) for the values xs, computed in dtype of In, compared with ref.
template <class Out, class In, class Ref>
void check_unary(OpId op, const std::vector<In>& xs, Ref ref, std::int64_t attr = 0) {
  const std::int64_t n = static_cast<std::int64_t>(xs.size());
  const ScalarType in_t = dtype_of<In>(), out_t = dtype_of<Out>();
  const ScalarType compute = op == OpId::Copy ? out_t : in_t;
  // Layouts: 0 contiguous, 1 input with stride 3 and an offset, 2 output with stride 2.
  for (int layout = 0; layout < 3; ++layout) {
    SegmentBuilder b;
    std::vector<In> stored = xs;
    Geometry in_geo = contiguous({n}), out_geo = contiguous({n});
    if (layout == 1) {
      stored.assign(static_cast<std::size_t>(3 * n + 1), In{});
      for (std::int64_t i = 0; i < n; ++i) stored[1 + 3 * i] = xs[i];
      in_geo = strided({n}, {3}, 1);
    }
    if (layout == 2) out_geo = strided({n}, {2});
    const auto x = b.input(stored);
    const auto y = b.value(static_cast<std::size_t>(2 * n) * sizeof(Out));
    b.node(op, compute, b.view(y, out_t, out_geo), {b.view(x, in_t, in_geo)}, attr);
    b.run();
    const std::vector<Out> got = b.read<Out>(y, out_geo);
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_TRUE(same_value<Out>(got[i], ref(xs[i]), tolerance_for<Out>()))
          << trace::name(op) << "(" << show(xs[i]) << ") in " << in_t << " -> " << out_t << ", layout " << layout
          << ": got " << show(got[i]) << ", expected " << show<Out>(ref(xs[i]));
  }
}

/// out = op(a, b) over every pair of as × bs, computed in T.
template <class Out, class T, class Ref>
void check_binary(OpId op, const std::vector<T>& as, const std::vector<T>& bs, Ref ref) {
  const std::int64_t na = static_cast<std::int64_t>(as.size()), nb = static_cast<std::int64_t>(bs.size());
  const ScalarType t = dtype_of<T>(), out_t = dtype_of<Out>();
  auto expect = [&](const std::vector<Out>& got, const char* layout) {
    for (std::int64_t i = 0; i < na; ++i)
      for (std::int64_t j = 0; j < nb; ++j) {
        const Out want = ref(as[i], bs[j]);
        EXPECT_TRUE(same_value<Out>(got[i * nb + j], want, tolerance_for<Out>()))
            << trace::name(op) << "(" << show(as[i]) << ", " << show(bs[j]) << ") in " << t << ", " << layout
            << ": got " << show(got[i * nb + j]) << ", expected " << show(want);
      }
  };
  {  // Broadcast grid: a as [na, 1] and b as [1, nb], both expanded with stride 0.
    SegmentBuilder b;
    const auto x = b.input(as), y = b.input(bs);
    const auto z = b.value(static_cast<std::size_t>(na * nb) * sizeof(Out));
    b.node(op, t, b.view(z, out_t, contiguous({na, nb})),
           {b.view(x, t, strided({na, nb}, {1, 0})), b.view(y, t, strided({na, nb}, {0, 1}))});
    b.run();
    expect(b.read<Out>(z), "broadcast");
  }
  {  // Materialized grid, a transposed (stored [nb, na]); b stored [na, nb]; output transposed.
    std::vector<T> at(static_cast<std::size_t>(na * nb)), bt(static_cast<std::size_t>(na * nb));
    for (std::int64_t i = 0; i < na; ++i)
      for (std::int64_t j = 0; j < nb; ++j) {
        at[j * na + i] = as[i];
        bt[i * nb + j] = bs[j];
      }
    SegmentBuilder b;
    const auto x = b.input(at), y = b.input(bt);
    const auto z = b.value(static_cast<std::size_t>(na * nb) * sizeof(Out));
    const Geometry out_geo = transposed(contiguous({nb, na}));
    b.node(op, t, b.view(z, out_t, out_geo),
           {b.view(x, t, transposed(contiguous({nb, na}))), b.view(y, t, contiguous({na, nb}))});
    b.run();
    expect(b.read<Out>(z, out_geo), "transposed");
  }
}

}  // namespace kiln::jit::testing
