// ConvTranspose1d/2d against a direct scatter loop over std::vector
// (strides, padding, output padding, dilation, groups, bias), as the
// adjoint of conv2d, gradients in float64, the modules (shapes, init,
// printing, output_size) and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::dbl;
using knn::printed;
using knn::values;
using gradcheck::Input;
using kiln::Tensor;
using V = std::vector<Tensor>;
using Shape = std::vector<std::int64_t>;

struct Case {
  Shape x, w;  // x [N, C, H, W], w [C, O/groups, KH, KW]
  std::int64_t s0, s1, p0, p1, op0, op1, d0, d1, groups;
};

// Every input element scattered through the kernel:
// out[n][o][i s + a d - p][j s + e d - p] += x[n][c][i][j] w[c][o'][a][e] (+ b[o]).
std::vector<double> scatter_loops(const std::vector<double>& x, const std::vector<double>& w,
                                  const std::vector<double>& b, const Case& p, Shape& out_shape) {
  const std::int64_t n = p.x[0], c = p.x[1], h = p.x[2], wd = p.x[3];
  const std::int64_t og = p.w[1], kh = p.w[2], kw = p.w[3], o = og * p.groups, cg = c / p.groups;
  const std::int64_t oh = (h - 1) * p.s0 - 2 * p.p0 + p.d0 * (kh - 1) + p.op0 + 1;
  const std::int64_t ow = (wd - 1) * p.s1 - 2 * p.p1 + p.d1 * (kw - 1) + p.op1 + 1;
  out_shape = {n, o, oh, ow};
  std::vector<double> out(static_cast<std::size_t>(n * o * oh * ow));
  for (std::int64_t in = 0; in < n; ++in)
    for (std::int64_t io = 0; io < o; ++io)
      for (std::int64_t i = 0; i < oh * ow; ++i) out[static_cast<std::size_t>((in * o + io) * oh * ow + i)] = b.empty() ? 0 : b[static_cast<std::size_t>(io)];
  for (std::int64_t in = 0; in < n; ++in)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t i = 0; i < h; ++i)
        for (std::int64_t j = 0; j < wd; ++j)
          for (std::int64_t oo = 0; oo < og; ++oo)
            for (std::int64_t a = 0; a < kh; ++a)
              for (std::int64_t e = 0; e < kw; ++e) {
                const std::int64_t y = i * p.s0 + a * p.d0 - p.p0, z = j * p.s1 + e * p.d1 - p.p1;
                if (y < 0 || y >= oh || z < 0 || z >= ow) continue;
                const std::int64_t io = ch / cg * og + oo;
                out[static_cast<std::size_t>(((in * o + io) * oh + y) * ow + z)] +=
                    x[static_cast<std::size_t>(((in * c + ch) * h + i) * wd + j)] *
                    w[static_cast<std::size_t>(((ch * og + oo) * kh + a) * kw + e)];
              }
  return out;
}

TEST(ConvTranspose, ConvTranspose2dMatchesAScatterLoop) {
  const std::vector<Case> cases = {
      {{2, 3, 4, 5}, {3, 2, 3, 3}, 1, 1, 0, 0, 0, 0, 1, 1, 1},
      {{1, 4, 3, 3}, {4, 3, 4, 4}, 2, 2, 1, 1, 0, 0, 1, 1, 1},  // DCGAN's upsampling layer
      {{1, 4, 3, 4}, {4, 1, 3, 2}, 2, 3, 1, 0, 1, 2, 1, 1, 2},  // output padding, groups
      {{2, 2, 3, 3}, {2, 2, 2, 3}, 1, 2, 0, 1, 1, 0, 2, 1, 1},  // output padding below the dilation only
      {{3, 8, 1, 1}, {8, 3, 3, 3}, 2, 2, 1, 1, 1, 1, 1, 1, 2},  // few positions: the batch joins the columns
  };
  int seed = 1;
  for (const Case& p : cases) {
    SCOPED_TRACE(::testing::Message() << "x " << kiln::IntArrayRef(p.x) << " w " << kiln::IntArrayRef(p.w));
    std::int64_t xn = 1, wn = 1;
    for (auto v : p.x) xn *= v;
    for (auto v : p.w) wn *= v;
    const std::vector<double> x = gradcheck::random_values(xn, seed++), w = gradcheck::random_values(wn, seed++);
    const std::vector<double> b = gradcheck::random_values(p.w[1] * p.groups, seed++);
    Shape shape;
    const std::vector<double> want = scatter_loops(x, w, b, p, shape);
    const Tensor got = torch::conv_transpose2d(dbl(x, p.x), dbl(w, p.w), dbl(b, {p.w[1] * p.groups}), {p.s0, p.s1},
                                               {p.p0, p.p1}, {p.op0, p.op1}, p.groups, {p.d0, p.d1});
    EXPECT_EQ(got.sizes().vec(), shape);
    knn::expect_near(values(got), want, 1e-12);
  }
}

// <conv2d(x, w), y> = <x, conv_transpose2d(y, w)>: the two are adjoint.
TEST(ConvTranspose, IsTheAdjointOfConv2d) {
  const Tensor x = torch::randn({2, 4, 7, 6}, torch::kFloat64), w = torch::randn({6, 2, 3, 2}, torch::kFloat64);
  const Tensor y = torch::conv2d(x, w, {}, {2, 1}, {1, 1}, {1, 2}, 2);
  const Tensor g = torch::randn(y.sizes(), torch::kFloat64);
  const Tensor back = torch::conv_transpose2d(g, w, {}, {2, 1}, {1, 1}, {0, 0}, 2, {1, 2});
  ASSERT_EQ(back.sizes().vec(), x.sizes().vec());
  EXPECT_NEAR((y * g).sum().item<double>(), (x * back).sum().item<double>(), 1e-9);
}

TEST(ConvTranspose, ConvTranspose1dIsConvTranspose2dWithAUnitHeight) {
  const Tensor x = torch::randn({2, 4, 9}, torch::kFloat64), w = torch::randn({4, 3, 3}, torch::kFloat64);
  const Tensor b = torch::randn({6}, torch::kFloat64);
  const Tensor one = torch::conv_transpose1d(x, w, b, 2, 1, 1, 2, 2);
  const Tensor two = torch::conv_transpose2d(x.unsqueeze(2), w.unsqueeze(2), b, {1, 2}, {0, 1}, {0, 1}, 2, {1, 2});
  knn::expect_near(values(one), values(two.squeeze(2)), 1e-12);
  knn::expect_near(values(torch::nn::functional::conv_transpose1d(
                       x[0], w, torch::nn::functional::ConvTranspose1dFuncOptions().stride(2).padding(1).output_padding(1).groups(2).dilation(2).bias(b))),
                   values(one[0]), 1e-12);
}

TEST(ConvTranspose, GradientsMatchCentralDifferences) {
  const Input x{gradcheck::random_values(2 * 4 * 3 * 3, 51), {2, 4, 3, 3}};
  const Input w{gradcheck::random_values(4 * 2 * 3 * 2, 52), {4, 2, 3, 2}};
  const Input b{gradcheck::random_values(4, 53), {4}};
  EXPECT_TRUE(gradcheck::check(
      [](const V& v) { return torch::conv_transpose2d(v[0], v[1], v[2], {2, 1}, {1, 0}, {1, 0}, 2); }, {x, w, b}));
  EXPECT_TRUE(gradcheck::check(
      [](const V& v) { return torch::conv_transpose1d(v[0].flatten(2), v[1].flatten(2), {}, 3, 1, 2, 1, 2); }, {x, w}));
  const Input few{gradcheck::random_values(2 * 6 * 1 * 2, 54), {2, 6, 1, 2}};  // the batch joins the columns
  const Input wide{gradcheck::random_values(6 * 4 * 3 * 3, 55), {6, 4, 3, 3}};
  EXPECT_TRUE(gradcheck::check([](const V& v) { return torch::conv_transpose2d(v[0], v[1], {}, 2); }, {few, wide}));
}

TEST(ConvTranspose, ModulesHaveLibTorchsShapesInitAndPrinting) {
  torch::manual_seed(0);
  torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(8, 6, {4, 3}).stride(2).padding(1).groups(2));
  EXPECT_EQ(up->weight.sizes().vec(), (Shape{8, 3, 4, 3}));
  EXPECT_EQ(up->bias.sizes().vec(), (Shape{6}));
  const double bound = 1 / std::sqrt(3.0 * 4 * 3);  // the weight's fan in: out/groups x kernel
  EXPECT_LE(up->weight.abs().max().item<float>(), bound);
  EXPECT_LE(up->bias.abs().max().item<float>(), bound);
  EXPECT_EQ(up->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(up(torch::randn({2, 8, 5, 5})).sizes().vec(), (Shape{2, 6, 10, 9}));
  EXPECT_EQ(up(torch::randn({8, 5, 5})).sizes().vec(), (Shape{6, 10, 9}));  // unbatched
  // output_size picks the output padding; the batch and channel dims may be included.
  EXPECT_EQ(up(torch::randn({1, 8, 5, 5}), Shape{11, 10}).sizes().vec(), (Shape{1, 6, 11, 10}));
  EXPECT_EQ(up(torch::randn({1, 8, 5, 5}), Shape{1, 6, 10, 10}).sizes().vec(), (Shape{1, 6, 10, 10}));
  EXPECT_EQ(printed(torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(100, 256, 4).bias(false))),
            "kiln::nn::ConvTranspose2d(100, 256, kernel_size=[4, 4], stride=[1, 1], bias=false)");
  EXPECT_EQ(printed(torch::nn::ConvTranspose1d(
                torch::nn::ConvTranspose1dOptions(4, 2, 3).stride(2).padding(1).output_padding(1).dilation(2).groups(2))),
            "kiln::nn::ConvTranspose1d(4, 2, kernel_size=[3], stride=[2], padding=[1], dilation=[2], "
            "output_padding=[1], groups=2)");
}

TEST(ConvTranspose, BadInputsNameTheLayerAndShapes) {
  torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(4, 2, 3).stride(2));
  knn::expect_error<kiln::ShapeError>([&] { up(torch::randn({1, 3, 5, 5})); },
                                      {"[nn::ConvTranspose2d] expected input [1, 3, 5, 5] to have 4 channels"});
  knn::expect_error<kiln::ShapeError>([&] { up(torch::randn({1, 4, 5, 5}), Shape{13, 11}); },
                                      {"[nn::ConvTranspose2d] requested an output size of [13, 11]",
                                       "range from 11 to 12"});
  knn::expect_error<kiln::ShapeError>([&] { up(torch::randn({1, 4, 5, 5}), Shape{11}); },
                                      {"output_size must have 2 or 4 elements, got [11]"});
  knn::expect_error<kiln::ValueError>(
      [] { torch::conv_transpose2d(torch::randn({1, 2, 3, 3}), torch::randn({2, 1, 3, 3}), {}, 2, 0, 2); },
      {"[conv_transpose2d] output padding must be smaller than either stride or dilation",
       "output_padding [2, 2], stride [2, 2]"});
  knn::expect_error<kiln::ShapeError>(
      [] { torch::conv_transpose2d(torch::randn({1, 3, 3, 3}), torch::randn({2, 1, 3, 3})); },
      {"[conv_transpose2d] input [1, 3, 3, 3] has 3 channels; weight [2, 1, 3, 3]"});
  knn::expect_error<kiln::ShapeError>(
      [] { torch::conv_transpose2d(torch::randn({1, 2, 3, 3}), torch::randn({2, 1, 3, 3}), torch::randn({2})); },
      {"[conv_transpose2d] bias [2] must have one element per out channel (1)"});
  knn::expect_error<kiln::ShapeError>(
      [] { torch::conv_transpose2d(torch::randn({1, 2, 1, 1}), torch::randn({2, 1, 1, 1}), {}, 1, 1); },
      {"gives an empty output"});
  knn::expect_error<kiln::ValueError>(
      [] { torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(3, 4, 3).groups(2)); },
      {"[nn::ConvTranspose2d] in_channels (3) and out_channels (4) must be positive and divisible by groups (2)"});
}

}  // namespace
