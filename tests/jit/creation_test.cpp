// Creation kernels: fill, arange, linspace, eye, rand, randn.
#include <cmath>
#include <numbers>

#include "jit/kernels/philox.h"
#include "jit/threads.h"
#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

// Runs one creation node into a fresh contiguous tensor of `shape`.
template <class T>
std::vector<T> create(OpId op, std::vector<std::int64_t> shape, std::vector<trace::Operand> params) {
  SegmentBuilder b;
  const Geometry geo = contiguous(shape);
  const auto v = b.value(static_cast<std::size_t>(geo.numel()) * sizeof(T));
  b.node(op, dtype_of<T>(), b.view(v, dtype_of<T>(), geo), params);
  b.run();
  return b.read<T>(v, geo);
}

trace::Operand number(Scalar s) { return SegmentBuilder::scalar(s, s.type()); }

TEST(CreationKernels, FillEveryType) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    const T value = static_cast<T>(3);
    for (T x : create<T>(OpId::Fill, {2, 3}, {number(Scalar(3))})) EXPECT_EQ(x, value);
  });
}

TEST(CreationKernels, FillIntoATransposedViewTouchesOnlyItsElements) {
  SegmentBuilder b;
  const auto v = b.input(std::vector<float>(12, -1.0f));
  // Every other column of a [3, 4] matrix, seen transposed: [2, 3] with strides (2, 4).
  b.node(OpId::Fill, kFloat32, b.view(v, kFloat32, strided({2, 3}, {2, 4})), {number(Scalar(7.5))});
  b.run();
  const auto got = b.read<float>(v);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got[i], i % 2 == 0 ? 7.5f : -1.0f) << i;
}

TEST(CreationKernels, ArangeIsStartPlusIndexTimesStep) {
  const auto f = create<float>(OpId::Iota, {3, 4}, {number(Scalar(1.5)), number(Scalar(0.25))});
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(f[i], static_cast<float>(1.5 + i * 0.25));
  const auto d = create<double>(OpId::Iota, {7}, {number(Scalar(-1.0)), number(Scalar(0.1))});
  for (int i = 0; i < 7; ++i) EXPECT_DOUBLE_EQ(d[i], -1.0 + i * 0.1);
  const auto l = create<std::int64_t>(OpId::Iota, {5}, {number(Scalar(-5)), number(Scalar(3))});
  EXPECT_EQ(l, (std::vector<std::int64_t>{-5, -2, 1, 4, 7}));
  const auto i32 = create<std::int32_t>(OpId::Iota, {4}, {number(Scalar(10)), number(Scalar(-4))});
  EXPECT_EQ(i32, (std::vector<std::int32_t>{10, 6, 2, -2}));
}

TEST(CreationKernels, LinspaceIsSymmetricWithExactEnds) {
  auto expected = [](double start, double end, std::int64_t n, std::int64_t i) {
    if (n == 1) return start;
    const double step = (end - start) / static_cast<double>(n - 1);
    return i < n / 2 ? start + static_cast<double>(i) * step : end - static_cast<double>(n - 1 - i) * step;
  };
  for (std::int64_t n : {1, 2, 5, 10, 101}) {
    const auto d = create<double>(OpId::Linspace, {n}, {number(Scalar(-1.0)), number(Scalar(3.3))});
    for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(d[i], expected(-1.0, 3.3, n, i)) << n << " " << i;
    EXPECT_EQ(d.front(), -1.0);
    if (n > 1) {
      EXPECT_EQ(d.back(), 3.3);
    }
  }
  EXPECT_EQ(create<std::int64_t>(OpId::Linspace, {5}, {number(Scalar(0)), number(Scalar(8))}),
            (std::vector<std::int64_t>{0, 2, 4, 6, 8}));
  EXPECT_TRUE(create<float>(OpId::Linspace, {0}, {number(Scalar(0)), number(Scalar(1))}).empty());
}

TEST(CreationKernels, EyeOnEveryType) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    const auto e = create<T>(OpId::Eye, {3, 4}, {});
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) EXPECT_EQ(e[i * 4 + j], static_cast<T>(i == j)) << i << "," << j;
  });
}

TEST(Philox, MatchesTheRandom123KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

template <class T>
std::vector<T> random(OpId op, std::int64_t n, std::int64_t seed, std::int64_t offset) {
  return create<T>(op, {n}, {number(Scalar(seed)), number(Scalar(offset))});
}

TEST(RandomKernels, UniformFollowsTheDocumentedStream) {
  const std::int64_t seed = 0x123456789abLL;
  const auto f = random<float>(OpId::RandUniform, 1000, seed, 77);
  const auto d = random<double>(OpId::RandUniform, 1000, seed, 77);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const PhiloxBlock r = philox_for_element(seed, 77, i);
    EXPECT_EQ(f[i], static_cast<float>(r[0] >> 8) / 16777216.0f);
    EXPECT_EQ(d[i], static_cast<double>((std::uint64_t{r[0]} << 21) ^ (r[1] >> 11)) / 9007199254740992.0);
    EXPECT_TRUE(f[i] >= 0 && f[i] < 1 && d[i] >= 0 && d[i] < 1);
  }
}

TEST(RandomKernels, UniformStatisticsAndOffsets) {
  const auto x = random<float>(OpId::RandUniform, 200000, 42, 0);
  double mean = 0;
  for (float v : x) mean += v;
  EXPECT_NEAR(mean / x.size(), 0.5, 0.005);
  // Element i of offset o is element o + i of offset 0: the frontend advances offsets by numel.
  const auto shifted = random<float>(OpId::RandUniform, 100, 42, 1000);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(shifted[i], x[1000 + i]);
  EXPECT_NE(random<float>(OpId::RandUniform, 100, 43, 0), std::vector<float>(x.begin(), x.begin() + 100));
}

TEST(RandomKernels, ResultsDoNotDependOnTheNumberOfThreads) {
  const int before = num_threads();
  set_num_threads(1);
  const auto one = random<double>(OpId::RandNormal, 300000, 7, 5);
  set_num_threads(2);
  const auto two = random<double>(OpId::RandNormal, 300000, 7, 5);
  set_num_threads(before);
  EXPECT_EQ(one, two);
}

TEST(RandomKernels, NormalIsBoxMullerOverTheStream) {
  const auto z = random<double>(OpId::RandNormal, 200000, 9, 0);
  double mean = 0, square = 0;
  for (double v : z) {
    mean += v;
    square += v * v;
  }
  mean /= z.size();
  EXPECT_NEAR(mean, 0, 0.01);
  EXPECT_NEAR(square / z.size() - mean * mean, 1, 0.02);
  const auto f = random<float>(OpId::RandNormal, 10, 9, 0);
  for (std::uint64_t i = 0; i < 10; ++i) {
    const PhiloxBlock r = philox_for_element(9, 0, i);
    const double u1 = (r[0] + 0.5) / 4294967296.0, u2 = (r[1] + 0.5) / 4294967296.0;
    const double want = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    EXPECT_EQ(z[i], want);
    EXPECT_EQ(f[i], static_cast<float>(want));
  }
}

}  // namespace
}  // namespace kiln::jit::testing
