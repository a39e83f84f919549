// Reduction kernels against a plain reference over every input element.
#include <cmath>
#include <numeric>

#include <kiln/settings.h>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/threads.h"
#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

bool is_arg(OpId op) { return op == OpId::Argmax || op == OpId::Argmin; }

// The dtype a reduction writes for input T (the trace layer's rule).
template <class T>
ScalarType result_dtype(OpId op) {
  if (is_arg(op)) return kInt64;
  if ((op == OpId::Sum || op == OpId::Prod) && !std::is_floating_point_v<T>) return kInt64;
  return dtype_of<T>();
}

struct Reduced {
  std::vector<std::int64_t> out_shape;
  std::vector<double> values;  // exact for the small integers used here
};

// Folds every element of the contiguous `data` of `shape` into its output.
template <class T>
Reduced reference(OpId op, const std::vector<T>& data, const std::vector<std::int64_t>& shape, unsigned mask,
                  bool keepdim) {
  Reduced r;
  std::vector<std::int64_t> kept_sizes;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (mask >> d & 1) {
      if (keepdim) r.out_shape.push_back(1);
    } else {
      r.out_shape.push_back(shape[d]);
      kept_sizes.push_back(shape[d]);
    }
  }
  const std::int64_t outputs = std::accumulate(kept_sizes.begin(), kept_sizes.end(), std::int64_t{1}, std::multiplies<>());
  const bool max = op == OpId::Amax || op == OpId::Argmax;
  std::vector<double> best(outputs, std::nan("")), acc(outputs, op == OpId::Prod ? 1 : 0);
  std::vector<std::int64_t> best_pos(outputs, -1);
  for (std::size_t i = 0; i < data.size(); ++i) {
    std::int64_t rest = static_cast<std::int64_t>(i), out = 0, out_scale = 1, pos = 0, pos_scale = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const std::int64_t idx = rest % shape[d];
      rest /= shape[d];
      if (mask >> d & 1) {
        pos += idx * pos_scale;
        pos_scale *= shape[d];
      } else {
        out += idx * out_scale;
        out_scale *= shape[d];
      }
    }
    const double v = static_cast<double>(data[i]);
    acc[out] = op == OpId::Prod ? acc[out] * v : acc[out] + v;
    const bool better = best_pos[out] < 0 || (!std::isnan(best[out]) && (std::isnan(v) || (max ? v > best[out] : v < best[out])));
    if (better) {
      best[out] = v;
      best_pos[out] = pos;
    }
  }
  for (std::int64_t o = 0; o < outputs; ++o) {
    if (op == OpId::Sum || op == OpId::Prod) r.values.push_back(acc[o]);
    else if (is_arg(op)) r.values.push_back(static_cast<double>(std::max<std::int64_t>(best_pos[o], 0)));
    else r.values.push_back(best[o]);
  }
  return r;
}

template <class T>
void check_reduction(OpId op, const std::vector<T>& data, const std::vector<std::int64_t>& shape, unsigned mask,
                     bool keepdim, bool transposed_input = false) {
  const Reduced want = reference(op, data, shape, mask, keepdim);
  SegmentBuilder b;
  Geometry in_geo = contiguous(shape);
  std::vector<T> stored = data;
  if (transposed_input) {  // the same logical tensor, stored column-major
    const std::int64_t rows = shape[0], cols = shape[1];
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) stored[j * rows + i] = data[i * cols + j];
    in_geo = transposed(contiguous({cols, rows}));
  }
  const auto x = b.input(stored);
  const ScalarType out_t = result_dtype<T>(op);
  const Geometry out_geo = contiguous(want.out_shape);
  const auto y = b.value(static_cast<std::size_t>(out_geo.numel()) * element_size(out_t));
  b.node(op, is_arg(op) ? dtype_of<T>() : out_t, b.view(y, out_t, out_geo), {b.view(x, dtype_of<T>(), in_geo)}, mask,
         keepdim);
  b.run();
  std::vector<double> got;
  visit_dtype<kAllTypes>(out_t, "test", [&]<class O>() {
    for (O v : b.read<O>(y, out_geo)) got.push_back(static_cast<double>(v));
  });
  ASSERT_EQ(got.size(), want.values.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(same_value(got[i], want.values[i], std::is_same_v<T, float> ? 1e-6 : 1e-12))
        << trace::name(op) << " on " << dtype_of<T>() << " mask " << mask << " keepdim " << keepdim << " output " << i
        << ": got " << got[i] << ", expected " << want.values[i];
}

const OpId kReductions[] = {OpId::Sum, OpId::Prod, OpId::Amax, OpId::Amin, OpId::Argmax, OpId::Argmin};

TEST(ReductionKernels, EveryOpTypeAndDimSubset) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    const std::vector<std::int64_t> shape = {3, 4, 5};
    std::vector<T> data(60);
    for (int i = 0; i < 60; ++i) data[i] = static_cast<T>((i * 7) % 11 - 4);  // repeats: ties for arg ops
    for (OpId op : kReductions)
      for (unsigned mask : {0u, 1u, 2u, 4u, 5u, 6u, 7u})
        for (bool keepdim : {false, true}) check_reduction(op, data, shape, mask, keepdim);
  });
}

TEST(ReductionKernels, TransposedInput) {
  std::vector<float> data(6 * 9);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::sin(static_cast<float>(i));
  for (OpId op : kReductions)
    for (unsigned mask : {1u, 2u, 3u}) check_reduction(op, data, {6, 9}, mask, false, true);
}

TEST(ReductionKernels, NaNIsTheExtreme) {
  const float nan = std::nanf("");
  const std::vector<float> data = {1, nan, 3, 2, 5, 4, nan, 0};
  for (OpId op : kReductions) check_reduction(op, data, {2, 4}, 2u, false);
}

TEST(ReductionKernels, EmptyReductionGivesTheIdentity) {
  check_reduction(OpId::Sum, std::vector<float>{}, {3, 0}, 2u, false);
  check_reduction(OpId::Prod, std::vector<std::int32_t>{}, {3, 0}, 2u, true);
  check_reduction(OpId::Sum, std::vector<double>{}, {0, 4}, 2u, false);  // no outputs at all
}

TEST(ReductionKernels, IntegerSumWrapsAndFloatSumAccumulatesInDouble) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  SegmentBuilder b;
  const auto x = b.input(std::vector<std::int64_t>{big, 2});
  const auto y = b.value(8);
  b.node(OpId::Sum, kInt64, b.view(y, kInt64, contiguous({})), {b.view(x, kInt64, contiguous({2}))}, 1, 0);
  b.run();
  EXPECT_EQ(b.read<std::int64_t>(y)[0], std::numeric_limits<std::int64_t>::min() + 1);

  // 2^24 + 1 + 1 + ... in float32 would stay at 2^24; in double it does not.
  std::vector<float> f(1001, 1.0f);
  f[0] = 16777216.0f;
  check_reduction(OpId::Sum, f, {1001}, 1u, false);
}

TEST(ReductionKernels, LongReductionsAreChunkedDeterministically) {
  std::vector<float> data(3 * 100000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::cos(static_cast<float>(i) * 0.01f);
  data[123456] = 50;  // the unique maximum, in the middle of a chunk of row 1
  for (OpId op : {OpId::Sum, OpId::Amax, OpId::Argmax, OpId::Argmin}) {
    check_reduction(op, data, {3, 100000}, 2u, false);
    check_reduction(op, data, {300000}, 1u, false);
  }
  auto full_sum = [&] {
    SegmentBuilder b;
    const auto x = b.input(data);
    const auto y = b.value(4);
    b.node(OpId::Sum, kFloat32, b.view(y, kFloat32, contiguous({})),
           {b.view(x, kFloat32, contiguous({static_cast<std::int64_t>(data.size())}))}, 1, 0);
    b.run();
    return b.read<float>(y)[0];
  };
  // Tier 0's chunking is what is checked: with the JIT on, a kernel of the
  // same segment from the suite's shared disk cache could run instead.
  const bool jit = kiln::jit::enabled();
  kiln::jit::set_enabled(false);
  const int before = num_threads();
  set_num_threads(1);
  const float one = full_sum();
  set_num_threads(2);
  EXPECT_EQ(one, full_sum());
  set_num_threads(before);
  kiln::jit::set_enabled(jit);
}

}  // namespace
}  // namespace kiln::jit::testing
