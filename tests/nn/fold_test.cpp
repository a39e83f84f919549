// unfold and fold (the Im2col and Col2im primitives): unfold against a
// plain loop over windows for several windows and dtypes, on a strided
// input; fold as unfold's adjoint (<unfold(x), y> = <x, fold(y)>) and as
// the count of windows covering each element; a conv2d through them against
// the same loop; LibTorch's node names; the modules; errors naming the
// shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/nn/nn_helpers.h"

namespace {

namespace F = torch::nn::functional;

struct Window {
  std::int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  F::UnfoldFuncOptions unfold() const {
    return F::UnfoldFuncOptions({kh, kw}).stride({sh, sw}).padding({ph, pw}).dilation({dh, dw});
  }
  F::FoldFuncOptions fold(std::int64_t h, std::int64_t w) const {
    return F::FoldFuncOptions({h, w}, {kh, kw}).stride({sh, sw}).padding({ph, pw}).dilation({dh, dw});
  }
  std::int64_t out(std::int64_t size, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d) const {
    return (size + 2 * p - d * (k - 1) - 1) / s + 1;
  }
};

// fn(column index, image index) for each element a window reads inside
// the image of [n, c, h, w]: column (c*kh*kw + i*kw + j, oy*ow + ox) reads
// x[n][c][oy*sh - ph + i*dh][ox*sw - pw + j*dw]; kernel offsets in order.
template <class Fn>
void for_each_read(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, const Window& win, Fn&& fn) {
  const std::int64_t oh = win.out(h, win.kh, win.sh, win.ph, win.dh), ow = win.out(w, win.kw, win.sw, win.pw, win.dw);
  const std::int64_t rows = c * win.kh * win.kw, l = oh * ow;
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t i = 0; i < win.kh; ++i)
        for (std::int64_t j = 0; j < win.kw; ++j)
          for (std::int64_t oy = 0; oy < oh; ++oy)
            for (std::int64_t ox = 0; ox < ow; ++ox) {
              const std::int64_t y = oy * win.sh - win.ph + i * win.dh, xx = ox * win.sw - win.pw + j * win.dw;
              if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
              fn(static_cast<std::size_t>((b * rows + (ch * win.kh + i) * win.kw + j) * l + oy * ow + ox),
                 static_cast<std::size_t>(((b * c + ch) * h + y) * w + xx));
            }
}

// unfold by definition, zero outside the image.
std::vector<double> unfold_loop(const std::vector<double>& x, std::int64_t n, std::int64_t c, std::int64_t h,
                                std::int64_t w, const Window& win) {
  const std::int64_t oh = win.out(h, win.kh, win.sh, win.ph, win.dh), ow = win.out(w, win.kw, win.sw, win.pw, win.dw);
  std::vector<double> out(static_cast<std::size_t>(n * c * win.kh * win.kw * oh * ow), 0.0);
  for_each_read(n, c, h, w, win, [&](std::size_t column, std::size_t image) { out[column] = x[image]; });
  return out;
}

// fold by definition in float: each image element adds the windows
// reading it in the order of their kernel offsets, as col2im does.
std::vector<double> fold_loop(const std::vector<double>& cols, std::int64_t n, std::int64_t c, std::int64_t h,
                              std::int64_t w, const Window& win) {
  std::vector<float> out(static_cast<std::size_t>(n * c * h * w), 0.0f);
  for_each_read(n, c, h, w, win,
                [&](std::size_t column, std::size_t image) { out[image] += static_cast<float>(cols[column]); });
  return {out.begin(), out.end()};
}

const std::vector<Window> kWindows = {
    {3, 3, 1, 1, 1, 1, 1, 1},  // a 3x3 same-size convolution's
    {3, 3, 1, 1, 2, 2, 2, 2},  // same-size again, dilated
    {2, 3, 2, 1, 1, 0, 1, 2},  // stride, padding and dilation on different dims
    {5, 5, 1, 1, 0, 0, 1, 1},  // LeNet's
    {1, 1, 3, 2, 0, 0, 1, 1},  // 1x1 windows that skip elements
    {2, 2, 2, 2, 0, 0, 1, 1},  // a 2x2 pooling's
    {3, 3, 2, 2, 1, 1, 1, 1},  // overlapping windows two apart, padded
};

// Image sizes: rows of windows shorter than 16, and longer (over one, two
// and three vectors of 16 floats).
const std::vector<std::pair<std::int64_t, std::int64_t>> kSizes = {{7, 9}, {5, 37}, {6, 18}};

std::string describe(const Window& win, std::int64_t h, std::int64_t w) {
  return (testing::Message() << "kernel " << win.kh << "x" << win.kw << " stride " << win.sh << "," << win.sw
                             << " padding " << win.ph << "," << win.pw << " dilation " << win.dh << "," << win.dw
                             << " image " << h << "x" << w)
      .GetString();
}

TEST(Unfold, MatchesALoopOverWindowsForEveryWindowAndDtype) {
  const std::int64_t n = 2, c = 3;
  for (const auto& [h, w] : kSizes)
    for (const Window& win : kWindows) {
      SCOPED_TRACE(describe(win, h, w));
      const torch::Tensor x = torch::randn({n, c, h, w}, torch::kFloat64);
      const std::vector<double> want = unfold_loop(knn::values(x), n, c, h, w, win);
      knn::expect_near(knn::values(F::unfold(x, win.unfold())), want, 0);
      // A strided view (the input's last two dims stored transposed), and float32.
      const torch::Tensor strided = x.transpose(2, 3).contiguous().transpose(2, 3);
      knn::expect_near(knn::values(F::unfold(strided, win.unfold())), want, 0);
      const torch::Tensor x32 = x.to(torch::kFloat32);
      knn::expect_near(knn::values(F::unfold(x32, win.unfold())), unfold_loop(knn::values(x32), n, c, h, w, win), 0);
      const torch::Tensor ints = torch::arange(n * c * h * w).reshape({n, c, h, w});
      knn::expect_near(knn::values(F::unfold(ints, win.unfold())), unfold_loop(knn::values(ints), n, c, h, w, win), 0);
      EXPECT_EQ(F::unfold(ints, win.unfold()).dtype(), torch::kInt64);
    }
}

TEST(Fold, IsUnfoldsAdjointAndCountsTheWindowsOverEachElement) {
  const std::int64_t n = 2, c = 2, h = 6, w = 8;
  for (const Window& win : kWindows) {
    const torch::Tensor x = torch::randn({n, c, h, w}, torch::kFloat64);
    const torch::Tensor cols = F::unfold(x, win.unfold());
    const torch::Tensor y = torch::randn(cols.sizes(), torch::kFloat64);
    const double lhs = (cols * y).sum().item<double>(), rhs = (x * F::fold(y, win.fold(h, w))).sum().item<double>();
    EXPECT_NEAR(lhs, rhs, 1e-9 * (1 + std::abs(lhs)));
    // Columns stored transposed (a strided view) fold to the same image.
    const torch::Tensor strided = y.transpose(1, 2).contiguous().transpose(1, 2);
    knn::expect_near(knn::values(F::fold(strided, win.fold(h, w))), knn::values(F::fold(y, win.fold(h, w))), 0);
    // fold(unfold(ones)): how many windows read each element, counted by a loop.
    const torch::Tensor ones_image = torch::ones({1, 1, h, w}, torch::kFloat64);
    const std::vector<double> counts = knn::values(F::fold(F::unfold(ones_image, win.unfold()), win.fold(h, w)));
    std::vector<double> want(static_cast<std::size_t>(h * w), 0.0);
    const std::int64_t oh = win.out(h, win.kh, win.sh, win.ph, win.dh), ow = win.out(w, win.kw, win.sw, win.pw, win.dw);
    for (std::int64_t oy = 0; oy < oh; ++oy)
      for (std::int64_t ox = 0; ox < ow; ++ox)
        for (std::int64_t i = 0; i < win.kh; ++i)
          for (std::int64_t j = 0; j < win.kw; ++j) {
            const std::int64_t yy = oy * win.sh - win.ph + i * win.dh, xx = ox * win.sw - win.pw + j * win.dw;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w) want[static_cast<std::size_t>(yy * w + xx)] += 1;
          }
    knn::expect_near(counts, want, 0);
  }
}

TEST(Fold, MatchesALoopAddingTheWindowsInOrderInFloat32) {
  const std::int64_t n = 2, c = 3;
  for (const auto& [h, w] : kSizes)
    for (const Window& win : kWindows) {
      SCOPED_TRACE(describe(win, h, w));
      const torch::Tensor cols = F::unfold(torch::randn({n, c, h, w}), win.unfold());
      const torch::Tensor y = torch::randn(cols.sizes());
      const std::vector<double> want = fold_loop(knn::values(y), n, c, h, w, win);
      knn::expect_near(knn::values(F::fold(y, win.fold(h, w))), want, 0);
      const torch::Tensor strided = y.transpose(1, 2).contiguous().transpose(1, 2);
      knn::expect_near(knn::values(F::fold(strided, win.fold(h, w))), want, 0);
    }
}

TEST(Fold, Conv2dThroughUnfoldMatchesALoop) {
  const torch::Tensor x = torch::randn({2, 3, 6, 7}, torch::kFloat64), k = torch::randn({4, 3, 3, 2}, torch::kFloat64);
  const torch::Tensor y = torch::conv2d(x, k, {}, {2, 1}, {1, 0}, {1, 2});
  const std::vector<double> xv = knn::values(x), kv = knn::values(k);
  ASSERT_EQ(y.sizes(), (std::vector<std::int64_t>{2, 4, 3, 5}));
  std::vector<double> want;
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t o = 0; o < 4; ++o)
      for (std::int64_t oy = 0; oy < 3; ++oy)
        for (std::int64_t ox = 0; ox < 5; ++ox) {
          double s = 0;
          for (std::int64_t ch = 0; ch < 3; ++ch)
            for (std::int64_t i = 0; i < 3; ++i)
              for (std::int64_t j = 0; j < 2; ++j) {
                const std::int64_t yy = oy * 2 - 1 + i, xx = ox + j * 2;
                if (yy < 0 || yy >= 6 || xx >= 7) continue;
                s += xv[static_cast<std::size_t>(((b * 3 + ch) * 6 + yy) * 7 + xx)] *
                     kv[static_cast<std::size_t>(((o * 3 + ch) * 3 + i) * 2 + j)];
              }
          want.push_back(s);
        }
  knn::expect_near(knn::values(y), want, 1e-12);
}

TEST(Fold, GradientNodesHaveLibTorchsNames) {
  const torch::Tensor x = torch::randn({1, 2, 4, 4}, torch::requires_grad());
  const torch::Tensor cols = F::unfold(x, F::UnfoldFuncOptions(2));
  EXPECT_EQ(cols.grad_fn()->name(), "Im2ColBackward0");
  EXPECT_EQ(F::fold(cols, F::FoldFuncOptions({4, 4}, 2)).grad_fn()->name(), "Col2ImBackward0");
  EXPECT_EQ(F::unfold(x.detach().unsqueeze(0).squeeze(0)[0], F::UnfoldFuncOptions(2)).sizes(),
            (std::vector<std::int64_t>{8, 9})) << "an unbatched [C, H, W] input";
}

TEST(Fold, ModulesRunTheFunctionalFormsAndPrintAsLibTorch) {
  torch::nn::Unfold unfold(torch::nn::UnfoldOptions({2, 3}).stride(2));
  torch::nn::Fold fold(torch::nn::FoldOptions({4, 5}, 2).padding(1));
  EXPECT_EQ(knn::printed(unfold), "kiln::nn::Unfold(kernel_size=[2, 3], dilation=[1, 1], padding=[0, 0], stride=[2, 2])");
  EXPECT_EQ(knn::printed(fold),
            "kiln::nn::Fold(output_size=[4, 5], kernel_size=[2, 2], dilation=[1, 1], padding=[1, 1], stride=[1, 1])");
  const torch::Tensor x = torch::randn({2, 3, 6, 7}, torch::kFloat64);
  knn::expect_near(knn::values(unfold(x)), knn::values(F::unfold(x, unfold->options)), 0);
  const torch::Tensor cols = torch::randn({2, 12, 30}, torch::kFloat64);  // 5 x 6 windows of 2x2 with padding 1
  knn::expect_near(knn::values(fold(cols)), knn::values(F::fold(cols, fold->options)), 0);
  EXPECT_TRUE(unfold->parameters().empty());
}

TEST(Fold, BadWindowsAndShapesAreErrorsNamingThem) {
  knn::expect_error<kiln::ValueError>([] { F::unfold(torch::randn({1, 1, 4, 4}), F::UnfoldFuncOptions(0)); },
                                      {"[unfold]", "kernel_size=[0, 0]"});
  knn::expect_error<kiln::ValueError>(
      [] { F::unfold(torch::randn({1, 1, 4, 4}), F::UnfoldFuncOptions(2).padding(-1)); }, {"padding=[-1, -1]"});
  knn::expect_error<kiln::ShapeError>([] { F::unfold(torch::randn({1, 1, 4, 4}), F::UnfoldFuncOptions({5, 2})); },
                                      {"[unfold]", "[1, 1, 4, 4]", "no window fits"});
  knn::expect_error<kiln::ShapeError>([] { F::unfold(torch::randn({4, 4}), F::UnfoldFuncOptions(2)); },
                                      {"[unfold]", "4-d input", "[4, 4]"});
  knn::expect_error<kiln::ShapeError>([] { F::fold(torch::randn({1, 8, 10}), F::FoldFuncOptions({4, 4}, 2)); },
                                      {"[fold]", "[1, 8, 10]", "expected [N, C*4, 9]"});
  knn::expect_error<kiln::ShapeError>([] { F::fold(torch::randn({1, 7, 9}), F::FoldFuncOptions({4, 4}, 2)); },
                                      {"[fold]", "[1, 7, 9]"});
}

}  // namespace
