// Tensor::index, index_put_ and operator[] against NumPy's rules computed by
// hand over an arange tensor (element value = its row-major position), views
// versus copies, gradients, and the errors.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;
using namespace kiln::indexing;
using V = std::vector<std::int64_t>;

// x[i][j][k] = 20 i + 5 j + k, shape [3, 4, 5].
Tensor cube() { return kiln::arange(60).view({3, 4, 5}); }
V values(const Tensor& t) { return t.contiguous().to_vector<std::int64_t>(); }
V sizes(const Tensor& t) { return t.sizes().vec(); }

TEST(Indexing, IntegersSlicesNoneAndEllipsisAreViews) {
  Tensor x = cube();
  Tensor a = x.index({1});
  EXPECT_EQ(sizes(a), (V{4, 5}));
  EXPECT_TRUE(a.is_same_storage(x));
  EXPECT_EQ(values(x.index({-1, 2})), (V{50, 51, 52, 53, 54}));
  EXPECT_EQ(values(x.index({Slice(), 0, 4})), (V{4, 24, 44}));
  EXPECT_EQ(values(x.index({0, Slice(1, None, 2), Slice(None, 2)})), (V{5, 6, 15, 16}));
  EXPECT_EQ(values(x.index({0, 0, Slice(-2, None)})), (V{3, 4}));
  EXPECT_EQ(sizes(x.index({0, Slice(10, 20)})), (V{0, 5}));  // clamped, as in Python
  EXPECT_EQ(sizes(x.index({None, Slice(), None})), (V{1, 3, 1, 4, 5}));
  EXPECT_EQ(values(x.index({"...", 3})), values(x.index({Slice(), Slice(), 3})));
  EXPECT_EQ(values(x.index({Ellipsis, 1, 2})), (V{7, 27, 47}));
  EXPECT_EQ(sizes(x.index({2, Ellipsis, None})), (V{4, 5, 1}));
  EXPECT_EQ(sizes(x.index({true})), (V{1, 3, 4, 5}));
  EXPECT_EQ(sizes(x.index({Slice(), false})), (V{3, 0, 4, 5}));
  EXPECT_EQ(values(x[2][1]), (V{45, 46, 47, 48, 49}));
  // Writes through a view reach the base.
  x.index({1, Slice(), 0}).fill_(-1);
  EXPECT_EQ(values(x.index({1, Slice(), 0})), (V{-1, -1, -1, -1}));
  EXPECT_EQ(x.index({1, 0, 1}).item<std::int64_t>(), 21);
}

TEST(Indexing, LongTensorIndicesGatherAndPlaceTheirDims) {
  Tensor x = cube();
  Tensor rows = kiln::tensor({2, 0, -1});
  Tensor r = x.index({rows});
  EXPECT_EQ(sizes(r), (V{3, 4, 5}));
  EXPECT_FALSE(r.is_same_storage(x));
  EXPECT_EQ(values(r.index({Slice(), 0, 0})), (V{40, 0, 40}));
  EXPECT_EQ(values(x[kiln::tensor({1})].flatten().slice(0, 0, 2)), (V{20, 21}));
  // Two adjacent tensor indices broadcast ([2,1] with [3]) and stay in place.
  Tensor i = kiln::tensor({0, 2}).view({2, 1}), j = kiln::tensor({1, 3, 4});
  Tensor p = x.index({Slice(), i, j});
  ASSERT_EQ(sizes(p), (V{3, 2, 3}));
  V want;
  for (std::int64_t a = 0; a < 3; ++a)
    for (std::int64_t b : {0, 2})
      for (std::int64_t c : {1, 3, 4}) want.push_back(20 * a + 5 * b + c);
  EXPECT_EQ(values(p), want);
  // Separated by a slice: the broadcast dims go first.
  Tensor q = x.index({kiln::tensor({0, 2}), Slice(), kiln::tensor({4, 0})});
  ASSERT_EQ(sizes(q), (V{2, 4}));
  EXPECT_EQ(values(q), (V{4, 9, 14, 19, 40, 45, 50, 55}));
  // Int32 indices work like Int64.
  EXPECT_EQ(values(x.index({0, 0, kiln::tensor({3, 1}).to(kiln::kInt32)})), (V{3, 1}));
}

TEST(Indexing, BoolMasksSelectTheTrueElements) {
  Tensor x = cube();
  Tensor m = x.index({0}) % 7 == 0;  // 0, 7, 14 in the first [4, 5] block
  EXPECT_EQ(values(x.index({0, m})), (V{0, 7, 14}));
  Tensor rows = kiln::tensor({true, false, true});
  EXPECT_EQ(sizes(x.index({rows})), (V{2, 4, 5}));
  EXPECT_EQ(values(x.index({rows, 0, 0})), (V{0, 40}));
  EXPECT_EQ(sizes(x.index({x > 100})), (V{0}));
  Tensor y = kiln::tensor({-1.0, 2.0, -3.0});
  EXPECT_EQ(y.index({y < 0}).to_vector<double>(), (std::vector<double>{-1, -3}));
}

TEST(Indexing, IndexPutWritesThroughViewsAndMasks) {
  Tensor x = kiln::zeros({3, 4}, kiln::kInt64);
  x.index_put_({Slice(None, 2), 1}, 7);
  x.index_put_({2}, kiln::tensor({1, 2, 3, 4}));
  EXPECT_EQ(values(x), (V{0, 7, 0, 0, 0, 7, 0, 0, 1, 2, 3, 4}));
  x.index_put_({x > 2}, -5);
  EXPECT_EQ(values(x), (V{0, -5, 0, 0, 0, -5, 0, 0, 1, 2, -5, -5}));
  Tensor rows = kiln::tensor({true, false, false});
  x.index_put_({rows}, kiln::tensor(std::vector<std::int64_t>{9}));
  EXPECT_EQ(values(x.index({0})), (V{9, 9, 9, 9}));
}

TEST(Indexing, GradientsFlowThroughIndexing) {
  Tensor w = kiln::arange(12, kiln::kFloat64).view({3, 4}).requires_grad_();
  Tensor y = w.index({Slice(), 1}).sum() + 2 * w.index({kiln::tensor({2, 2}), kiln::tensor({0, 3})}).sum() +
             w.index({w > 9.5}).sum();
  y.backward();
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{0, 1, 0, 0, 0, 1, 0, 0, 2, 1, 1, 3}));
}

TEST(Indexing, BadIndicesAreErrorsNamingTheShapes) {
  Tensor x = cube();
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const kiln::IndexError& e) {
      return std::string(e.what());
    }
    return std::string("no IndexError");
  };
  EXPECT_NE(message([&] { (void)x.index({0, 0, 0, 0}); }).find("too many indices for tensor of dimension 3"),
            std::string::npos);
  EXPECT_THROW((void)x.index({Ellipsis, 0, Ellipsis}), kiln::IndexError);
  EXPECT_THROW((void)x.index({3}), kiln::IndexError);
  EXPECT_NE(message([&] { (void)x.index({kiln::tensor({0, 3})}); }).find("out of range for dim 0 of size 3"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)x.index({kiln::tensor({0, 1}), kiln::tensor({0, 1, 2})}); }).find("[2], [3]"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)x.index({kiln::tensor({true, false})}); }).find("mask of shape [2]"),
            std::string::npos);
  EXPECT_THROW((void)x.index({kiln::tensor({0.5})}), kiln::IndexError);
  EXPECT_THROW((void)x.index({"..x"}), kiln::ValueError);
  EXPECT_THROW((void)x.index({Slice(0, 2, 0)}), kiln::ValueError);
  EXPECT_THROW(x.index_put_({kiln::tensor({0, 1})}, 1), kiln::IndexError);
  EXPECT_THROW(x.index_put_({x > 3}, kiln::tensor({1, 2})), kiln::ShapeError);
}

}  // namespace
