// Conv1d/Conv2d and max/avg/adaptive pooling against direct loops over
// std::vector (strides, padding, dilation, groups, ceil_mode), gradients in
// float64, the modules (shapes, init, printing) and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::values;
using knn::dbl;
using gradcheck::Input;
using kiln::Tensor;
using V = std::vector<Tensor>;
using Shape = std::vector<std::int64_t>;
namespace F = torch::nn::functional;

struct Conv2dCase {
  Shape x, w;
  std::int64_t sh, sw, ph, pw, dh, dw, groups;
};

// out[n][o][i][j] = b[o] + sum over c in o's group, kh, kw of x[n][c][i sh + kh dh - ph][j sw + kw dw - pw] w[o][c'][kh][kw].
std::vector<double> conv2d_loops(const std::vector<double>& x, const std::vector<double>& w,
                                 const std::vector<double>& b, const Conv2dCase& p, Shape& out_shape) {
  const std::int64_t n = p.x[0], c = p.x[1], h = p.x[2], wd = p.x[3];
  const std::int64_t o = p.w[0], cg = p.w[1], kh = p.w[2], kw = p.w[3];
  const std::int64_t oh = (h + 2 * p.ph - p.dh * (kh - 1) - 1) / p.sh + 1;
  const std::int64_t ow = (wd + 2 * p.pw - p.dw * (kw - 1) - 1) / p.sw + 1;
  out_shape = {n, o, oh, ow};
  std::vector<double> out;
  for (std::int64_t in = 0; in < n; ++in)
    for (std::int64_t io = 0; io < o; ++io)
      for (std::int64_t i = 0; i < oh; ++i)
        for (std::int64_t j = 0; j < ow; ++j) {
          double s = b.empty() ? 0 : b[io];
          const std::int64_t group = io / (o / p.groups);
          for (std::int64_t cc = 0; cc < cg; ++cc)
            for (std::int64_t a = 0; a < kh; ++a)
              for (std::int64_t e = 0; e < kw; ++e) {
                const std::int64_t y = i * p.sh + a * p.dh - p.ph, z = j * p.sw + e * p.dw - p.pw;
                if (y < 0 || y >= h || z < 0 || z >= wd) continue;
                const std::int64_t ch = group * cg + cc;
                s += x[((in * c + ch) * h + y) * wd + z] * w[((io * cg + cc) * kh + a) * kw + e];
              }
          out.push_back(s);
        }
  return out;
}

TEST(Conv, Conv2dMatchesLoops) {
  const Conv2dCase cases[] = {{{2, 3, 7, 6}, {4, 3, 3, 3}, 1, 1, 0, 0, 1, 1, 1},
                              {{1, 2, 8, 9}, {3, 2, 3, 2}, 2, 3, 1, 2, 1, 1, 1},
                              {{2, 4, 9, 9}, {6, 2, 3, 3}, 1, 2, 2, 1, 2, 1, 2},
                              {{1, 1, 5, 5}, {2, 1, 5, 5}, 1, 1, 0, 0, 1, 1, 1},
                              // few positions, many channels: the batch joins the product's columns
                              {{3, 8, 4, 4}, {16, 4, 2, 2}, 2, 2, 0, 0, 1, 1, 2}};
  std::uint32_t seed = 1;
  for (const Conv2dCase& p : cases) {
    auto numel = [](const Shape& s) {
      std::int64_t n = 1;
      for (std::int64_t v : s) n *= v;
      return n;
    };
    const std::vector<double> x = gradcheck::random_values(numel(p.x), seed++), w = gradcheck::random_values(numel(p.w), seed++),
                              b = gradcheck::random_values(p.w[0], seed++);
    Shape out_shape;
    const std::vector<double> want = conv2d_loops(x, w, b, p, out_shape);
    Tensor got = torch::conv2d(dbl(x, p.x), dbl(w, p.w), dbl(b, {p.w[0]}), {p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw},
                               p.groups);
    ASSERT_EQ(got.sizes().vec(), out_shape);
    const std::vector<double> g = values(got);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(g[i], want[i], 1e-12) << i;
    // The functional form and float32 agree.
    Tensor f = F::conv2d(dbl(x, p.x).to(torch::kFloat32), dbl(w, p.w).to(torch::kFloat32),
                         F::Conv2dFuncOptions().stride({p.sh, p.sw}).padding({p.ph, p.pw}).dilation({p.dh, p.dw})
                             .groups(p.groups).bias(dbl(b, {p.w[0]}).to(torch::kFloat32)));
    const std::vector<double> fv = values(f);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(fv[i], want[i], 1e-4) << i;
  }
}

TEST(Conv, Conv1dIsConv2dWithAUnitHeight) {
  const std::vector<double> x = gradcheck::random_values(2 * 3 * 10, 11), w = gradcheck::random_values(4 * 3 * 3, 12);
  Tensor one = torch::conv1d(dbl(x, {2, 3, 10}), dbl(w, {4, 3, 3}), {}, 2, 1, 2);
  Tensor two = torch::conv2d(dbl(x, {2, 3, 1, 10}), dbl(w, {4, 3, 1, 3}), {}, {1, 2}, {0, 1}, {1, 2});
  EXPECT_EQ(one.sizes().vec(), (Shape{2, 4, 4}));
  const std::vector<double> a = values(one), b = values(two);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12);
  // Unbatched input.
  EXPECT_EQ(torch::conv1d(dbl(x, {2, 3, 10}).select(0, 1), dbl(w, {4, 3, 3})).sizes().vec(), (Shape{4, 8}));
}

// Window positions of one spatial dim: start of window i and whether it exists.
struct Pool1d {
  std::int64_t k, s, p, d;
};

TEST(Pool, MaxAndAvgPool2dMatchLoops) {
  const std::int64_t h = 7, w = 6;
  const std::vector<double> x = gradcheck::random_values(2 * h * w, 21);
  struct Case {
    Pool1d r, c;
    bool ceil;
  };
  for (const Case& cs : {Case{{2, 2, 0, 1}, {2, 2, 0, 1}, false}, Case{{3, 2, 1, 1}, {2, 1, 1, 1}, false},
                         Case{{3, 2, 1, 1}, {3, 2, 0, 1}, true}, Case{{2, 1, 0, 2}, {3, 3, 1, 1}, true}}) {
    auto out_size = [&](std::int64_t in, const Pool1d& q) {
      const std::int64_t room = in + 2 * q.p - q.d * (q.k - 1) - 1;
      std::int64_t n = (cs.ceil ? (room + q.s - 1) / q.s : room / q.s) + 1;
      if (cs.ceil && (n - 1) * q.s >= in + q.p) --n;
      return n;
    };
    const std::int64_t oh = out_size(h, cs.r), ow = out_size(w, cs.c);
    std::vector<double> want_max, want_avg, want_avg_excl;
    for (std::int64_t ch = 0; ch < 2; ++ch)
      for (std::int64_t i = 0; i < oh; ++i)
        for (std::int64_t j = 0; j < ow; ++j) {
          double m = -INFINITY, s = 0;
          std::int64_t inside = 0;
          for (std::int64_t a = 0; a < cs.r.k; ++a)
            for (std::int64_t b = 0; b < cs.c.k; ++b) {
              const std::int64_t y = i * cs.r.s + a * cs.r.d - cs.r.p, z = j * cs.c.s + b * cs.c.d - cs.c.p;
              if (y < 0 || y >= h || z < 0 || z >= w) continue;
              m = std::max(m, x[(ch * h + y) * w + z]);
              s += x[(ch * h + y) * w + z];
              ++inside;
            }
          // LibTorch's divisor with padding counted: the window clipped to the padded input.
          const std::int64_t y0 = i * cs.r.s - cs.r.p, z0 = j * cs.c.s - cs.c.p;
          const std::int64_t rows = std::min(y0 + cs.r.k, h + cs.r.p) - y0, cols = std::min(z0 + cs.c.k, w + cs.c.p) - z0;
          want_max.push_back(m);
          want_avg.push_back(s / static_cast<double>(rows * cols));
          want_avg_excl.push_back(s / static_cast<double>(inside));
        }
    Tensor in = dbl(x, {2, h, w});  // unbatched [C, H, W]
    Tensor mx = torch::max_pool2d(in, {cs.r.k, cs.c.k}, {cs.r.s, cs.c.s}, {cs.r.p, cs.c.p}, {cs.r.d, cs.c.d}, cs.ceil);
    ASSERT_EQ(mx.sizes().vec(), (Shape{2, oh, ow}));
    EXPECT_EQ(values(mx), want_max);
    if (cs.r.d == 1 && cs.c.d == 1) {
      const std::vector<double> avg =
          values(torch::avg_pool2d(in, {cs.r.k, cs.c.k}, {cs.r.s, cs.c.s}, {cs.r.p, cs.c.p}, cs.ceil));
      const std::vector<double> excl = values(
          F::avg_pool2d(in, F::AvgPool2dFuncOptions({cs.r.k, cs.c.k}).stride({cs.r.s, cs.c.s}).padding({cs.r.p, cs.c.p})
                                .ceil_mode(cs.ceil).count_include_pad(false)));
      for (std::size_t i = 0; i < avg.size(); ++i) {
        EXPECT_NEAR(avg[i], want_avg[i], 1e-12) << i;
        EXPECT_NEAR(excl[i], want_avg_excl[i], 1e-12) << i;
      }
    }
  }
  Tensor fixed = F::avg_pool2d(dbl(x, {1, 2, h, w}), F::AvgPool2dFuncOptions(2).divisor_override(3));
  EXPECT_NEAR(values(fixed)[0], (x[0] + x[1] + x[w] + x[w + 1]) / 3, 1e-12);
}

TEST(Pool, AdaptiveAvgPoolAveragesLibTorchsRegions) {
  const std::int64_t h = 7, w = 5, oh = 3, ow = 2;
  const std::vector<double> x = gradcheck::random_values(h * w, 31);
  std::vector<double> want;
  for (std::int64_t i = 0; i < oh; ++i)
    for (std::int64_t j = 0; j < ow; ++j) {
      const std::int64_t y0 = i * h / oh, y1 = ((i + 1) * h + oh - 1) / oh;
      const std::int64_t z0 = j * w / ow, z1 = ((j + 1) * w + ow - 1) / ow;
      double s = 0;
      for (std::int64_t y = y0; y < y1; ++y)
        for (std::int64_t z = z0; z < z1; ++z) s += x[y * w + z];
      want.push_back(s / static_cast<double>((y1 - y0) * (z1 - z0)));
    }
  const std::vector<double> got = values(torch::adaptive_avg_pool2d(dbl(x, {1, 1, h, w}), {oh, ow}));
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  torch::nn::AdaptiveAvgPool2d global(torch::nn::AdaptiveAvgPool2dOptions(1));
  EXPECT_NEAR(global(dbl(x, {1, h, w})).item<double>(), dbl(x, {h, w}).mean().item<double>(), 1e-12);
}

TEST(ConvPool, GradientsMatchCentralDifferences) {
  const Input x{gradcheck::random_values(2 * 4 * 5 * 5, 41), {2, 4, 5, 5}};
  const Input w{gradcheck::random_values(4 * 2 * 3 * 3, 42), {4, 2, 3, 3}};
  const Input b{gradcheck::random_values(4, 43), {4}};
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::conv2d(v[0], v[1], v[2], 2, 1, 1, 2); }, {x, w, b}));
  const Input wide{gradcheck::random_values(6 * 4 * 4 * 4, 44), {6, 4, 4, 4}};  // the batch joins the columns
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::conv2d(v[0], v[1], {}, 2); }, {x, wide}));
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::conv1d(v[0].flatten(2), v[1].flatten(2), {}, 3, 2, 2, 2); },
                               {x, w}));
  // Distinct values: every window has one maximum.
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::max_pool2d(v[0], 3, 2, 1, 1, true); }, {x}));
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::avg_pool2d(v[0], 2, 2, 1, true, false); }, {x}));
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::adaptive_avg_pool2d(v[0], {2, 3}); }, {x}));
}

TEST(ConvPool, MaxPoolSendsATiedWindowsGradientToItsFirstMaximum) {
  Tensor x = torch::tensor({1.0, 3.0, 3.0, 0.0}, torch::kFloat64).view({1, 1, 2, 2}).requires_grad_();
  Tensor y = torch::max_pool2d(x, 2);
  EXPECT_EQ(y.grad_fn()->name(), "MaxPool2DWithIndicesBackward0");
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 1, 0, 0}));
}

TEST(ConvPool, MaxPoolOfTilingWindowsMatchesLoopsWithTies) {
  // Windows that tile the input (read in place, without Im2col, when no
  // gradient is needed), with and without padding, in 2-d and 1-d; values
  // from {0, 1, 2} tie often, and each window's gradient goes to its first
  // maximum in row-major order.
  struct Case {
    Shape x;
    std::int64_t kh, kw, ph, pw;
  };
  for (const Case& cs : {Case{{2, 3, 4, 6}, 2, 3, 0, 0}, Case{{1, 2, 6, 4}, 3, 2, 0, 1}, Case{{2, 2, 1, 8}, 1, 2, 0, 0}}) {
    const std::int64_t c = cs.x[0] * cs.x[1], h = cs.x[2], w = cs.x[3];
    std::vector<double> x(static_cast<std::size_t>(c * h * w));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 7 + i / 5) % 3);
    const std::int64_t oh = (h + 2 * cs.ph) / cs.kh, ow = (w + 2 * cs.pw) / cs.kw;
    std::vector<double> want, want_grad(x.size(), 0.0);
    for (std::int64_t p = 0; p < c; ++p)
      for (std::int64_t i = 0; i < oh; ++i)
        for (std::int64_t j = 0; j < ow; ++j) {
          double m = -INFINITY;
          std::int64_t at = -1;
          for (std::int64_t a = 0; a < cs.kh; ++a)
            for (std::int64_t b = 0; b < cs.kw; ++b) {
              const std::int64_t y = i * cs.kh + a - cs.ph, z = j * cs.kw + b - cs.pw;
              if (y < 0 || y >= h || z < 0 || z >= w) continue;
              if (x[(p * h + y) * w + z] > m) m = x[at = (p * h + y) * w + z];
            }
          want.push_back(m);
          want_grad[static_cast<std::size_t>(at)] += static_cast<double>(want.size());
        }
    auto pool = [&](const Tensor& in) {
      return h == 1 ? torch::max_pool1d(in.squeeze(2), cs.kw, cs.kw, cs.pw)
                    : torch::max_pool2d(in, {cs.kh, cs.kw}, {cs.kh, cs.kw}, {cs.ph, cs.pw});
    };
    Tensor in = dbl(x, cs.x);
    EXPECT_EQ(values(pool(in)), want) << "without a gradient";
    in.requires_grad_();
    const Tensor y = pool(in);
    EXPECT_EQ(values(y), want);
    (y * torch::arange(1, static_cast<double>(want.size()) + 1, 1, torch::kFloat64).view(y.sizes())).sum().backward();
    EXPECT_EQ(values(in.grad()), want_grad);
  }
}

TEST(ConvPool, MaxPoolWithAOneElementKernelPassesTheGradientThrough) {
  Tensor x = torch::tensor({1.0, -2.0, 3.0, 0.5, 4.0, -1.0}, torch::kFloat64).view({1, 1, 2, 3}).requires_grad_();
  const Tensor y = torch::max_pool2d(x, 1);
  EXPECT_EQ(values(y), values(x));
  (y * torch::arange(6, torch::kFloat64).view({1, 1, 2, 3})).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(ConvPool, MaxPoolOfAWindowWithNaNIsNaNAndItsGradientGoesToTheFirstNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = torch::tensor({1.0, nan, 5.0, nan, 2.0, 3.0, 4.0, 0.5}, torch::kFloat64).view({1, 1, 2, 4}).requires_grad_();
  const Tensor y = torch::max_pool2d(x, 2);  // windows {1, nan, 2, 3} and {5, nan, 4, 0.5}
  const std::vector<double> got = values(y);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]));
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 1, 0, 1, 0, 0, 0, 0}));
}

TEST(ConvPool, ModulesHaveLibTorchsShapesInitAndPrinting) {
  torch::manual_seed(0);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, {3, 5}).stride(2).padding(1).groups(1).bias(true));
  EXPECT_EQ(conv->weight.sizes().vec(), (Shape{8, 3, 3, 5}));
  EXPECT_EQ(conv->bias.sizes().vec(), (Shape{8}));
  const double bound = 1 / std::sqrt(3.0 * 3 * 5);
  EXPECT_LE(conv->weight.abs().max().item<float>(), bound);
  EXPECT_LE(conv->bias.abs().max().item<float>(), bound);
  EXPECT_EQ(conv->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(conv(torch::randn({2, 3, 9, 9})).sizes().vec(), (Shape{2, 8, 5, 4}));
  std::ostringstream out;
  out << *conv << "\n"
      << *torch::nn::Conv1d(torch::nn::Conv1dOptions(4, 4, 3).groups(2).bias(false).dilation(2)) << "\n"
      << *torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)) << "\n"
      << *torch::nn::AvgPool2d(torch::nn::AvgPool2dOptions({3, 2}).stride(1)) << "\n"
      << *torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({1, 1}));
  EXPECT_EQ(out.str(),
            "kiln::nn::Conv2d(3, 8, kernel_size=[3, 5], stride=[2, 2], padding=[1, 1])\n"
            "kiln::nn::Conv1d(4, 4, kernel_size=[3], stride=[1], dilation=[2], groups=2, bias=false)\n"
            "kiln::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)\n"
            "kiln::nn::AvgPool2d(kernel_size=[3, 2], stride=[1, 1], padding=[0, 0])\n"
            "kiln::nn::AdaptiveAvgPool2d(output_size=[1, 1])");
}

TEST(ConvPool, BadInputsNameTheLayerAndShapes) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 10, 5));
  try {
    conv(torch::randn({2, 3, 28, 28}));
    FAIL() << "no error";
  } catch (const kiln::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[nn::Conv2d] expected input [2, 3, 28, 28] to have 1 channels, but got 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(conv(torch::randn({28, 28})), kiln::ShapeError);
  EXPECT_THROW(conv(torch::randn({1, 1, 4, 28})), kiln::ShapeError);  // smaller than the kernel
  EXPECT_THROW(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).groups(2)), kiln::ValueError);
  EXPECT_THROW(torch::conv2d(torch::randn({1, 4, 5, 5}), torch::randn({4, 3, 3, 3})), kiln::ShapeError);
  EXPECT_THROW(torch::conv2d(torch::randn({1, 3, 5, 5}), torch::randn({4, 3, 3, 3}), torch::randn({3})),
               kiln::ShapeError);
  EXPECT_THROW(torch::conv2d(torch::randn({1, 3, 5, 5}), torch::randn({4, 3, 3, 3}), {}, {1, 1, 1}), kiln::ValueError);
  EXPECT_THROW(torch::max_pool2d(torch::randn({1, 1, 5, 5}), 2, 2, 2), kiln::ValueError);  // padding > half kernel
  EXPECT_THROW(torch::max_pool2d(torch::ones({1, 1, 4, 4}, torch::kInt64), 2), kiln::DtypeError);
  EXPECT_THROW(torch::avg_pool2d(torch::randn({1, 1, 4, 4}), 0), kiln::ValueError);
  EXPECT_THROW(torch::nn::functional::avg_pool2d(torch::randn({1, 4, 4}),
                                                 torch::nn::functional::AvgPool2dFuncOptions(2).divisor_override(0)),
               kiln::ValueError);
  EXPECT_THROW(torch::adaptive_avg_pool2d(torch::randn({1, 4, 4}), {0, 1}), kiln::ShapeError);
}

}  // namespace
