// MatMul against a naive triple loop: awkward sizes, batches with a
// broadcast (stride-0) batch dim, transposed operands, every numeric type.
#include <random>

#include "jit/kernels/gemm.h"
#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

template <class T>
std::vector<T> random_matrix(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) {
    if constexpr (std::is_floating_point_v<T>) x = std::uniform_real_distribution<T>(-1, 1)(gen);
    else x = static_cast<T>(std::uniform_int_distribution<int>(-1000, 1000)(gen));
  }
  return v;
}

struct MatmulCase {
  std::int64_t batch, m, k, n;
  bool a_transposed = false, b_transposed = false, b_broadcast = false, out_transposed = false;
};

template <class T>
void check_matmul(const MatmulCase& c) {
  const ScalarType t = dtype_of<T>();
  const auto a = random_matrix<T>(c.batch * c.m * c.k, 1);
  const std::int64_t b_batches = c.b_broadcast ? 1 : c.batch;
  const auto bm = random_matrix<T>(b_batches * c.k * c.n, 2);
  // Logical element accessors (row-major logical layouts of a and b).
  auto A = [&](std::int64_t p, std::int64_t i, std::int64_t j) { return a[(p * c.m + i) * c.k + j]; };
  auto B = [&](std::int64_t p, std::int64_t i, std::int64_t j) { return bm[((c.b_broadcast ? 0 : p) * c.k + i) * c.n + j]; };

  // Store each operand as its layout asks: transposed ones column-major per batch.
  std::vector<T> a_stored(a.size()), b_stored(bm.size());
  for (std::int64_t p = 0; p < c.batch; ++p)
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.k; ++j)
        a_stored[p * c.m * c.k + (c.a_transposed ? j * c.m + i : i * c.k + j)] = A(p, i, j);
  for (std::int64_t p = 0; p < b_batches; ++p)
    for (std::int64_t i = 0; i < c.k; ++i)
      for (std::int64_t j = 0; j < c.n; ++j)
        b_stored[p * c.k * c.n + (c.b_transposed ? j * c.k + i : i * c.n + j)] = B(p, i, j);
  const Geometry a_geo = c.a_transposed ? strided({c.batch, c.m, c.k}, {c.m * c.k, 1, c.m})
                                        : contiguous({c.batch, c.m, c.k});
  Geometry b_geo = c.b_transposed ? strided({c.batch, c.k, c.n}, {c.k * c.n, 1, c.k}) : contiguous({c.batch, c.k, c.n});
  if (c.b_broadcast) b_geo.strides[0] = 0;
  const Geometry out_geo = c.out_transposed ? strided({c.batch, c.m, c.n}, {c.m * c.n, 1, c.m})
                                            : contiguous({c.batch, c.m, c.n});

  SegmentBuilder sb;
  const auto x = sb.input(a_stored), y = sb.input(b_stored);
  const auto z = sb.value(static_cast<std::size_t>(c.batch * c.m * c.n) * sizeof(T));
  sb.node(OpId::MatMul, t, sb.view(z, t, out_geo), {sb.view(x, t, a_geo), sb.view(y, t, b_geo)});
  sb.run();
  const auto got = sb.read<T>(z, out_geo);

  for (std::int64_t p = 0; p < c.batch; ++p)
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.n; ++j) {
        T want{};
        double scale = 0;
        for (std::int64_t q = 0; q < c.k; ++q) {
          if constexpr (std::is_floating_point_v<T>) {
            want += A(p, i, q) * B(p, q, j);
            scale += std::abs(A(p, i, q) * B(p, q, j));
          } else {
            want = static_cast<T>(static_cast<std::make_unsigned_t<T>>(want) +
                                  static_cast<std::make_unsigned_t<T>>(A(p, i, q)) *
                                      static_cast<std::make_unsigned_t<T>>(B(p, q, j)));
          }
        }
        const T g = got[(p * c.m + i) * c.n + j];
        if constexpr (std::is_floating_point_v<T>) {
          ASSERT_NEAR(g, want, (std::is_same_v<T, float> ? 1e-5 : 1e-13) * (scale + 1))
              << t << " " << c.batch << "x" << c.m << "x" << c.k << "x" << c.n << " at " << p << "," << i << "," << j;
        } else {
          ASSERT_EQ(g, want) << t << " " << c.m << "x" << c.k << "x" << c.n << " at " << p << "," << i << "," << j;
        }
      }
}

TEST(MatMulKernel, AwkwardSizesEveryType) {
  for_each_type<float, double, std::int32_t, std::int64_t>([]<class T>() {
    for (const MatmulCase& c : {MatmulCase{1, 1, 1, 1}, MatmulCase{1, 7, 13, 5}, MatmulCase{1, 65, 129, 33},
                                MatmulCase{1, 300, 200, 100}, MatmulCase{2, 13, 400, 17}})
      check_matmul<T>(c);
  });
}

TEST(MatMulKernel, LargerThanOneCacheBlock) {
  check_matmul<float>({1, 1600, 450, 700});  // m past mc, k past kc, n past nc
  check_matmul<double>({1, 257, 300, 300});
}

TEST(MatMulKernel, TransposedOperandsAndOutput) {
  for_each_type<float, double, std::int64_t>([]<class T>() {
    check_matmul<T>({1, 37, 29, 41, true, false});
    check_matmul<T>({1, 37, 29, 41, false, true});
    check_matmul<T>({1, 70, 90, 50, true, true, false, true});
  });
}

TEST(MatMulKernel, BatchedWithABroadcastBatchDim) {
  for_each_type<float, std::int32_t>([]<class T>() {
    check_matmul<T>({5, 9, 11, 7, false, false, true});    // many small matrices
    check_matmul<T>({3, 130, 70, 90, false, true, true});  // a few large ones
  });
}

TEST(MatMulKernel, EmptyDims) {
  check_matmul<float>({1, 4, 0, 3});  // k == 0: zeros
  check_matmul<std::int64_t>({2, 3, 0, 5});
  check_matmul<float>({1, 0, 5, 3});
  check_matmul<double>({0, 2, 2, 2});
}

// This machine runs only the best variant by default; check the others too.
TEST(MatMulKernel, EveryMicroKernelVariantTheCpuSupports) {
  using kernels::GemmVariant;
  const std::pair<GemmVariant, bool> variants[] = {
      {GemmVariant::Avx512, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")},
      {GemmVariant::Avx2, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")},
      {GemmVariant::Baseline, true}};
  for (const auto& [variant, supported] : variants) {
    if (!supported) continue;
    kernels::set_gemm_variant(variant);
    check_matmul<float>({1, 67, 401, 83, false, true});
    check_matmul<double>({2, 29, 213, 35, true, false});
  }
  kernels::set_gemm_variant(GemmVariant::Best);
}

}  // namespace
}  // namespace kiln::jit::testing
