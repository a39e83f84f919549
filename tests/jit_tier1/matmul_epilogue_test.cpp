// A matmul followed by elementwise consumers of its product runs on tier 1
// as one unit: the GEMM with the consumers' compiled kernel as its per-block
// epilogue. Each case runs on tier 0 and tier 1 against a plain reference,
// and fails if the fused unit did not run (or ran more than once).
#include "jit/tier1/matmul_epilogue.h"

#include <gtest/gtest.h>
#include <kiln/kiln.h>
#include <kiln/nn/conv.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "jit/kernels/gemm.h"
#include "tests/common/reference.h"
#include "tests/jit_tier1/tiers.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

// Multiples of 1/4 in [-1, 1]: products and sums of up to a few hundred
// terms are exact in float32, so only the activations are approximate.
Tensor input(const Shape& s, unsigned seed, kiln::ScalarType t = kiln::kFloat32) {
  return kref::make(kref::random_steps(s, seed, -4, 4, 0.25), t);
}

struct Case {
  std::function<std::vector<Tensor>()> program;
  std::function<std::vector<Ref>()> reference;
  std::uint64_t fused_units = 1;  // matmul epilogue runs expected per evaluation
  kref::Tol tol = {1e-5, 1e-5};
};

void check(const Case& c) {
  const std::vector<Ref> want = c.reference();
  kiln::jit::set_enabled(false);
  const std::vector<Tensor> t0 = c.program();
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_TRUE(kref::close(t0[k], want[k], c.tol)) << "tier 0, output " << k;

  const std::uint64_t fused_before = kiln::jit::matmul_epilogue_runs();
  const std::uint64_t compiled_before = kiln::stats().jit.group_runs_compiled;
  std::vector<Ref> t1;
  {
    tiers::Tier1Scope scope;
    for (const Tensor& t : c.program()) t1.push_back(kref::of(t));
  }
  EXPECT_EQ(kiln::jit::matmul_epilogue_runs() - fused_before, c.fused_units) << "fused matmul units run";
  EXPECT_GE(kiln::stats().jit.group_runs_compiled - compiled_before, c.fused_units);
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_TRUE(kref::close(t1[k], want[k], c.tol)) << "tier 1, output " << k;
}

Ref plus(const Ref& a, const Ref& b) {
  return kref::zip(a, b, [](double x, double y) { return x + y; });
}
Ref relu(const Ref& a) {
  return kref::map(a, [](double x) { return x > 0 ? x : 0; });
}

// linear(x, w, b).relu() = relu(x @ w^T + b), with w^T a transposed view.
Case linear_relu(std::int64_t m, std::int64_t k, std::int64_t n) {
  Tensor x = input({m, k}, 1), w = input({n, k}, 2), b = input({n}, 3);
  return {
      [=] { return std::vector<Tensor>{kiln::nn::functional::linear(x, w, b).relu()}; },
      [=] {
        return std::vector<Ref>{relu(plus(kref::matmul(kref::of(x), kref::transpose(kref::of(w), 0, 1)), kref::of(b)))};
      }};
}

TEST(MatmulEpilogue, LinearBiasReluOnAwkwardShapes) {
  for (auto [m, k, n] : {std::array<std::int64_t, 3>{1, 1, 1}, {7, 13, 5}, {129, 257, 65}, {64, 500, 300}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    check(linear_relu(m, k, n));
  }
}

TEST(MatmulEpilogue, EveryGemmVariant) {
  using kiln::jit::kernels::GemmVariant;
  for (GemmVariant v : {GemmVariant::Avx2, GemmVariant::Baseline}) {
    if (v == GemmVariant::Avx2 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) continue;
    SCOPED_TRACE(static_cast<int>(v));
    kiln::jit::kernels::set_gemm_variant(v);
    check(linear_relu(129, 257, 65));
    kiln::jit::kernels::set_gemm_variant(GemmVariant::Best);
  }
}

TEST(MatmulEpilogue, Activations) {
  Tensor x = input({37, 29}, 4), w = input({29, 41}, 5), b = input({41}, 6);
  using Act = std::pair<std::function<Tensor(const Tensor&)>, std::function<double(double)>>;
  const std::pair<const char*, Act> acts[] = {
      {"gelu",
       {[](const Tensor& t) { return kiln::gelu(t); },
        [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }}},
      {"gelu_tanh",
       {[](const Tensor& t) { return kiln::gelu(t, "tanh"); },
        [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); }}},
      {"tanh", {[](const Tensor& t) { return kiln::tanh(t); }, [](double v) { return std::tanh(v); }}},
      {"sigmoid", {[](const Tensor& t) { return kiln::sigmoid(t); }, [](double v) { return 1 / (1 + std::exp(-v)); }}}};
  for (const auto& [name, act] : acts) {
    SCOPED_TRACE(name);
    const auto& [f, ref] = act;
    check({[=] { return std::vector<Tensor>{f(x.matmul(w) + b)}; },
           [=] { return std::vector<Ref>{kref::map(plus(kref::matmul(kref::of(x), kref::of(w)), kref::of(b)), ref)}; },
           1,
           {1e-5, 1e-5}});
  }
}

TEST(MatmulEpilogue, ScalingAndBiasAlongRowsAndColumns) {
  Tensor x = input({33, 20}, 7), w = input({20, 17}, 8), row = input({17}, 9), col = input({33, 1}, 10);
  check({[=] { return std::vector<Tensor>{(x.matmul(w) * 0.5 + col) * row - 2}; },
         [=] {
           Ref y = kref::map(kref::matmul(kref::of(x), kref::of(w)), [](double v) { return v * 0.5; });
           Ref s = kref::zip(plus(y, kref::of(col)), kref::of(row), [](double a, double r) { return a * r; });
           return std::vector<Ref>{kref::map(s, [](double v) { return v - 2; })};
         }});
}

TEST(MatmulEpilogue, TransposedOperands) {
  Tensor xt = input({19, 45}, 11), wt = input({23, 19}, 12), b = input({23}, 13);
  check({[=] { return std::vector<Tensor>{(xt.t().matmul(wt.t()) + b).relu()}; },
         [=] {
           Ref y = kref::matmul(kref::transpose(kref::of(xt), 0, 1), kref::transpose(kref::of(wt), 0, 1));
           return std::vector<Ref>{relu(plus(y, kref::of(b)))};
         }});
}

TEST(MatmulEpilogue, RawProductLiveTooIsStored) {
  Tensor x = input({50, 70}, 14), w = input({70, 90}, 15), b = input({90}, 16);
  check({[=] {
           Tensor y = x.matmul(w);
           return std::vector<Tensor>{y, (y + b).relu()};
         },
         [=] {
           Ref y = kref::matmul(kref::of(x), kref::of(w));
           return std::vector<Ref>{y, relu(plus(y, kref::of(b)))};
         }});
}

TEST(MatmulEpilogue, Batched) {
  Tensor x = input({3, 21, 30}, 17), w = input({30, 26}, 18), b = input({26}, 19);
  Tensor xb = input({2, 3, 9, 11}, 20), wb = input({2, 3, 11, 7}, 21);
  check({[=] {
           return std::vector<Tensor>{(x.matmul(w) + b).relu(), kiln::tanh(xb.matmul(wb) * 0.25)};
         },
         [=] {
           Ref yb = kref::matmul(kref::of(xb), kref::of(wb));
           return std::vector<Ref>{relu(plus(kref::matmul(kref::of(x), kref::of(w)), kref::of(b))),
                                   kref::map(yb, [](double v) { return std::tanh(v * 0.25); })};
         },
         2});
}

TEST(MatmulEpilogue, Float64) {
  Tensor x = input({31, 40}, 22, kiln::kFloat64), w = input({40, 27}, 23, kiln::kFloat64);
  Tensor b = input({27}, 24, kiln::kFloat64);
  check({[=] { return std::vector<Tensor>{(x.matmul(w) + b).relu()}; },
         [=] { return std::vector<Ref>{relu(plus(kref::matmul(kref::of(x), kref::of(w)), kref::of(b)))}; }, 1,
         kref::kDoubleTol});
}

// No output can hold the product in place: it goes to a scratch buffer.
TEST(MatmulEpilogue, CastAndComparisonOutputs) {
  Tensor x = input({25, 12}, 25), w = input({12, 18}, 26), b = input({18}, 27);
  check({[=] {
           Tensor y = x.matmul(w) + b;
           return std::vector<Tensor>{y.to(kiln::kFloat64), y > 0};
         },
         [=] {
           Ref y = plus(kref::matmul(kref::of(x), kref::of(w)), kref::of(b));
           return std::vector<Ref>{y, kref::map(y, [](double v) { return v > 0 ? 1.0 : 0.0; })};
         }});
}

// An in-place accumulation into a tensor the epilogue also reads: the
// product must not be parked in that tensor.
TEST(MatmulEpilogue, AccumulateIntoAnExistingTensor) {
  Tensor x = input({20, 16}, 28), w = input({16, 24}, 29), acc0 = input({20, 24}, 30);
  check({[=] {
           Tensor acc = acc0.clone();
           kiln::sync();
           acc.add_(x.matmul(w));
           return std::vector<Tensor>{acc};
         },
         [=] { return std::vector<Ref>{plus(kref::of(acc0), kref::matmul(kref::of(x), kref::of(w)))}; }});
}

// Integer matmuls keep today's path (tier 0 GEMM, then a fused group).
TEST(MatmulEpilogue, IntegerMatmulIsNotFused) {
  Tensor x = input({9, 8}, 31, kiln::kInt64), w = input({8, 6}, 32, kiln::kInt64);
  check({[=] { return std::vector<Tensor>{(x.matmul(w) + 1).relu()}; },
         [=] {
           return std::vector<Ref>{
               kref::map(kref::matmul(kref::of(x), kref::of(w)), [](double v) { return std::max(v + 1, 0.0); })};
         },
         0, kref::kExact});
}



// Writing into an operand of the matmul: the GEMM would read what the
// epilogue already wrote, so the group runs on tier 0 (and stays right).
TEST(MatmulEpilogue, WritingIntoAnOperandRunsOnTierZero) {
  Tensor x0 = input({14, 10}, 33), w = input({10, 10}, 34);
  check({[=] {
           Tensor x = x0.clone();
           kiln::sync();
           x.add_(x.matmul(w));
           return std::vector<Tensor>{x};
         },
         [=] { return std::vector<Ref>{plus(kref::of(x0), kref::matmul(kref::of(x0), kref::of(w)))}; },
         0});
}

// A consumer walking the product in another order is no epilogue.
TEST(MatmulEpilogue, TransposedReadOfTheProductIsNotFused) {
  Tensor x = input({6, 5}, 35), w = input({5, 8}, 36), c = input({8, 6}, 37);
  check({[=] { return std::vector<Tensor>{x.matmul(w).t() + c}; },
         [=] { return std::vector<Ref>{plus(kref::transpose(kref::matmul(kref::of(x), kref::of(w)), 0, 1), kref::of(c))}; },
         0});
}

// f(out channel, conv2d(x, w) at an element), stride 1, no padding, by loops.
template <class F>
Ref conv2d_then(const Ref& x, const Ref& w, F f) {
  const std::int64_t n = x.shape[0], c = x.shape[1], o = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  const std::int64_t oh = x.shape[2] - kh + 1, ow = x.shape[3] - kw + 1;
  return kref::build({n, o, oh, ow}, [&](const Shape& i) {
    double s = 0;
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t a = 0; a < kh; ++a)
        for (std::int64_t e = 0; e < kw; ++e) s += x.at({i[0], ch, i[2] + a, i[3] + e}) * w.at({i[1], ch, a, e});
    return f(i[1], s);
  });
}

// relu(conv2d(x, w, b)).
Ref conv2d_relu(const Ref& x, const Ref& w, const Ref& b) {
  return conv2d_then(x, w, [&](std::int64_t o, double s) { return std::max(s + b.v[o], 0.0); });
}

// A convolution is a product of the weight and the input's windows,
// [N, groups, O/groups, H x W], read back as [N, O, H, W]: its bias along
// the out channels and its activation are that product's epilogue. Where
// the batch joins the product's columns (few positions, many channels),
// the product is [O, N x H x W], read back permuted: no epilogue.
TEST(MatmulEpilogue, ConvolutionBiasAndActivation) {
  struct ConvCase {
    Shape x, w;
    std::uint64_t fused_units;
  };
  for (const ConvCase& p : {ConvCase{{1, 3, 9, 8}, {5, 3, 3, 3}, 1}, ConvCase{{2, 4, 12, 11}, {6, 4, 2, 3}, 1},
                            ConvCase{{4, 8, 3, 3}, {16, 8, 2, 2}, 0}}) {
    SCOPED_TRACE(kref::str(p.x));
    Tensor x = input(p.x, 41), w = input(p.w, 42), b = input({p.w[0]}, 43);
    check({[=] { return std::vector<Tensor>{kiln::relu(kiln::conv2d(x, w, b))}; },
           [=] { return std::vector<Ref>{conv2d_relu(kref::of(x), kref::of(w), kref::of(b))}; }, p.fused_units});
  }
}

// Batch norm in eval mode after a convolution: its per-channel factor
// rsqrt(running_var + eps) is recorded between the product and the
// normalization that reads it. It depends on neither, so it runs ahead of
// the GEMM, and the normalization, scale, shift and ReLU are the product's
// epilogue.
TEST(MatmulEpilogue, BatchNormInEvalModeAfterAConvolution) {
  Tensor x = input({2, 4, 12, 11}, 44), w = input({6, 4, 2, 3}, 45);
  Tensor mean = input({6}, 46), gamma = input({6}, 47), beta = input({6}, 48);
  Tensor var = kref::make(Ref({6}, {0.25, 0.5, 1.0, 2.0, 4.0, 0.75}), kiln::kFloat32);
  constexpr double kEps = 1e-5;
  check({[=] {
           return std::vector<Tensor>{
               kiln::relu(kiln::batch_norm(kiln::conv2d(x, w), gamma, beta, mean, var, false, 0.1, kEps, false))};
         },
         [=] {
           const Ref m = kref::of(mean), v = kref::of(var), g = kref::of(gamma), b = kref::of(beta);
           return std::vector<Ref>{conv2d_then(kref::of(x), kref::of(w), [&](std::int64_t o, double s) {
             return std::max((s - m.v[o]) / std::sqrt(v.v[o] + kEps) * g.v[o] + b.v[o], 0.0);
           })};
         },
         1});
}

// What runs ahead of a matmul must not touch what it reads: here the value
// between the product and its consumer is written into the matmul's own
// operand, so nothing may move ahead of the GEMM and no epilogue forms.
TEST(MatmulEpilogue, ANodeWritingTheMatmulsOperandStaysInPlace) {
  Tensor x0 = input({12, 9}, 49), w = input({9, 7}, 50), c = input({12, 7}, 51);
  check({[=] {
           Tensor x = x0.clone();
           kiln::sync();
           Tensor y = x.matmul(w);
           x.mul_(2);
           return std::vector<Tensor>{(y + c).relu(), x};
         },
         [=] {
           return std::vector<Ref>{relu(plus(kref::matmul(kref::of(x0), kref::of(w)), kref::of(c))),
                                   kref::map(kref::of(x0), [](double v) { return 2 * v; })};
         },
         0});
}

// A softmax after the matmul is a row kernel (reductions range over rows,
// not elements): it runs after the GEMM, never as its epilogue.
TEST(MatmulEpilogue, ReductionsAfterTheMatmulAreNoEpilogue) {
  Tensor x = input({9, 7}, 38), w = input({7, 12}, 39), b = input({12}, 40);
  check({[=] { return std::vector<Tensor>{(x.matmul(w) + b).softmax(1)}; },
         [=] { return std::vector<Ref>{kref::softmax(plus(kref::matmul(kref::of(x), kref::of(w)), kref::of(b)), 1)}; },
         0});
}

}  // namespace
