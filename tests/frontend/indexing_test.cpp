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
  EXPECT_THROW(x.index_put_({kiln::tensor({0, 3})}, 1), kiln::IndexError);
  try {
    x.index_put_({x > 3}, kiln::tensor({1, 2}));
    ADD_FAILURE() << "no ShapeError";
  } catch (const kiln::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("value tensor of shape [2] cannot be broadcast to indexing result of "
                                         "shape [56]"),
              std::string::npos)
        << e.what();
  }
}

TEST(Indexing, IndexPutThroughTensorIndicesWritesWhereIndexReads) {
  // Non-adjacent indexed dims (0 and 2): the index shape [2] goes in front.
  Tensor x = cube();
  const V i0 = {2, 0}, i2 = {1, -2};
  x.index_put_({kiln::tensor(i0), Slice(), kiln::tensor(i2)}, kiln::arange(8).view({2, 4}) + 100);
  V want = values(cube());
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t j = 0; j < 4; ++j) want[20 * i0[b] + 5 * j + (i2[b] + 5) % 5] = 100 + 4 * b + j;
  EXPECT_EQ(values(x), want);

  // Adjacent indexed dims (1 and 2) broadcast to [2, 2], written with one number.
  Tensor y = cube();
  y.index_put_({Slice(), kiln::tensor(V{0, 3}).view({2, 1}), kiln::tensor(V{1, 2})}, -1);
  want = values(cube());
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t r : {0, 3})
      for (std::int64_t c : {1, 2}) want[20 * i + 5 * r + c] = -1;
  EXPECT_EQ(values(y), want);
  EXPECT_EQ(values(y.index({Slice(), kiln::tensor(V{0, 3}).view({2, 1}), kiln::tensor(V{1, 2})})), V(12, -1));

  // A repeated position takes the last value written to it.
  Tensor z = kiln::zeros({3, 2}, kiln::kInt64);
  z.index_put_({kiln::tensor(V{1, 1, 0, 1, 2})}, kiln::tensor(V{1, 2, 3, 4, 5}).view({5, 1}));
  EXPECT_EQ(values(z), (V{3, 3, 4, 4, 5, 5}));

  // A bool mask with one value per selected element.
  Tensor m = kiln::arange(6);
  m.index_put_({m.remainder(2) == 0}, kiln::tensor(V{10, 20, 30}));
  EXPECT_EQ(values(m), (V{10, 1, 20, 3, 30, 5}));
}

TEST(Indexing, GradientsFlowThroughTensorIndexWrites) {
  Tensor w = kiln::arange(6, kiln::kFloat64).view({3, 2}).requires_grad_();
  Tensor v = kiln::tensor({10.0, 20.0, 30.0}).requires_grad_();
  Tensor out = w.clone();
  out.index_put_({kiln::tensor(V{2, 0, 2}), 1}, v);
  (out * (kiln::arange(6, kiln::kFloat64).view({3, 2}) + 1)).sum().backward();
  // Overwritten elements pass no gradient to w; a value overwritten by a
  // later one passes none either.
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{1, 0, 3, 4, 5, 0}));
  EXPECT_EQ(v.grad().to_vector<double>(), (std::vector<double>{0, 2, 6}));
}

}  // namespace
