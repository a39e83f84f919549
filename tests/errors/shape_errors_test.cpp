// Wrong shapes throw kiln::ShapeError from the user's call, naming the op
// and the shapes, and leave other tensors intact.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "tests/errors/expect_error.h"

namespace {

using kerr::throws;
using kiln::ShapeError;
using kiln::Tensor;

TEST(ShapeErrors, BroadcastMismatchInBinaryOps) {
  kerr::Survivors s;
  Tensor a = kiln::ones({2, 3}), b = kiln::ones({4});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)(a + b); }, {"[add]", "[2, 3]", "[4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)(a * kiln::ones({3, 2})); }, {"[mul]", "[2, 3]", "[3, 2]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::maximum(a, b); }, {"[2, 3]", "[4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)(a < b); }, {"[2, 3]", "[4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::where(kiln::ones({5}) > 0, a, a); }, {"[5]", "[2, 3]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)a.t().add(a); }, {"[3, 2]", "[2, 3]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, MatmulInnerDimensionMismatch) {
  kerr::Survivors s;
  Tensor a = kiln::ones({3, 4}), b = kiln::ones({5, 6});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)a.matmul(b); }, {"[matmul] [3, 4] @ [5, 6]", "4", "5"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::mm(a, b); }, {"[3, 4]", "[5, 6]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::matmul(kiln::ones({3}), kiln::ones({4})); }, {"3", "4"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::matmul(kiln::ones({2, 3, 4}), kiln::ones({3, 4, 2})); },
                                 {"[matmul]"}));  // batch dims 2 vs 3 do not broadcast
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::bmm(kiln::ones({2, 3, 4}), kiln::ones({2, 5, 1})); },
                                 {"[2, 3, 4]", "[2, 5, 1]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, MatmulFamilyRankRequirements) {
  kerr::Survivors s;
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::mm(kiln::ones({2, 3, 4}), kiln::ones({4, 2})); }, {"[2, 3, 4]"}));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::bmm(kiln::ones({3, 4}), kiln::ones({4, 2})); }, {"[3, 4]"}));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::bmm(kiln::ones({2, 3, 4}), kiln::ones({3, 4, 5})); },
                                 {"[2, 3, 4]", "[3, 4, 5]"}));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::matmul(kiln::scalar_tensor(1.0), kiln::ones({2})); }));
  EXPECT_TRUE(throws<ShapeError>(
      [] { (void)kiln::addmm(kiln::ones({3}), kiln::ones({2, 4}), kiln::ones({4, 5})); }, {"[3]"}));
  EXPECT_TRUE(throws<ShapeError>(
      [] { (void)kiln::nn::functional::linear(kiln::ones({2, 3}), kiln::ones({4, 5})); }, {"[2, 3]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, ReshapeAndViewWithTheWrongElementCount) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.reshape({4}); }, {"[reshape]", "[4]", "6"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.view({4, -1}); }, {"[view]", "[4, -1]", "6"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.view({-1, -1}); }, {"[-1, -1]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.view({-2, 3}); }, {"-2"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::zeros({0, 3}).reshape({-1, 0}); }));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, ViewOfANonViewableLayout) {
  kerr::Survivors s;
  Tensor xt = kiln::ones({2, 3}).t();
  EXPECT_TRUE(throws<ShapeError>([&] { (void)xt.view({6}); }, {"[view]", "[6]", "[3, 2]"}));
  Tensor cols = kiln::ones({4, 4}).slice(1, 0, 3);  // [4, 3] with row stride 4
  EXPECT_TRUE(throws<ShapeError>([&] { (void)cols.view({12}); }, {"[12]"}));
  EXPECT_NO_THROW((void)kiln::ones({4, 4}).slice(1, 0, 4, 2).view({8}));  // stride 2 throughout: viewable
  EXPECT_NO_THROW((void)xt.reshape({6}));  // reshape copies instead
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, SizesWhoseProductOverflowsInt64) {
  kerr::Survivors s;
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::zeros({big, big}); }, {"[zeros]", "1099511627776"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::ones({big, big, 2}); }, {"1099511627776"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::empty({big, big}); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::full({big, big}, 1.0); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::rand({big, big}); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::randn({big, big}); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::randint(3, {big, big}); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::ones({1}).reshape({big, big}); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::ones({1, 1}).expand({big, big}); }));
  // numel fits in int64 but the bytes do not fit in memory
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::zeros({std::int64_t{1} << 62}); }));
  // a zero dim makes the product 0: not an overflow
  EXPECT_NO_THROW((void)kiln::zeros({big, big, 0}));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, NegativeSizes) {
  kerr::Survivors s;
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::zeros({2, -1}); }, {"[zeros]", "-1"}));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::ones({-3}); }, {"-3"}));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::empty({-1, 2}); }));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::full({-2}, 1); }));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::rand({-2}); }));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::randn({3, -2}); }));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::randint(5, {-2}); }));
  EXPECT_TRUE(throws<ShapeError>([] { (void)kiln::eye(-1); }));
  EXPECT_THROW((void)kiln::linspace(0, 1, -1), kiln::Error);  // a step count, not a size: either kind
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, ExpandToIncompatibleSizes) {
  kerr::Survivors s;
  Tensor x = kiln::ones({3, 1});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.expand({4, 2}); }, {"[expand]", "[3, 1]", "[4, 2]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.expand({3}); }, {"[3, 1]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.expand({-1, 2, 2}); }));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.expand_as(kiln::ones({2, 2})); }));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, CatAndStackWithMismatchedPieces) {
  kerr::Survivors s;
  Tensor a = kiln::ones({2, 3}), b = kiln::ones({2, 4}), c = kiln::ones({2});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::cat({a, b}, 0); }, {"[cat]", "[2, 3]", "[2, 4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::cat({a, c}); }, {"[2, 3]", "[2]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::stack({a, b}); }, {"[stack]", "[2, 3]", "[2, 4]"}));
  EXPECT_NO_THROW((void)kiln::cat({a, b}, 1));
  EXPECT_THROW((void)kiln::cat({}), kiln::Error);
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, InPlaceResultThatDoesNotFitSelf) {
  kerr::Survivors s;
  Tensor x = kiln::zeros({3});
  EXPECT_TRUE(throws<ShapeError>([&] { x.add_(kiln::ones({2, 3})); }, {"[add_]", "[3]", "[2, 3]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { x.mul_(kiln::ones({4})); }, {"[3]", "[4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { x.copy_(kiln::ones({2})); }, {"[copy_]", "[2]", "[3]"}));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 0, 0})) << "a failed in-place op wrote";
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, ReductionsWithoutIdentityOverEmptyDims) {
  kerr::Survivors s;
  Tensor e = kiln::zeros({0, 3});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)kiln::zeros({0}).argmax(); }, {"[argmax]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)e.argmin(0); }, {"[0, 3]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)e.max(); }, {"[0, 3]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)e.min(0); }, {"[0, 3]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)e.amax({0}); }, {"[0, 3]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)e.amin(); }, {"[0, 3]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ShapeErrors, OtherShapeRequirements) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3, 4});
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.t(); }, {"[t]", "[2, 3, 4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.permute({0, 1}); }, {"[permute]", "[2, 3, 4]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.gather(0, kiln::zeros({2, 3}, kiln::kInt64)); }, {"[gather]"}));
  EXPECT_TRUE(throws<ShapeError>([&] { (void)x.index_select(0, kiln::zeros({1, 1}, kiln::kInt64)); },
                                 {"[index_select]", "[1, 1]"}));
  EXPECT_TRUE(s.intact());
}

}  // namespace
