// Dims and indices outside their range throw kiln::IndexError: dims at the
// op call; index *values* of index_select/gather at the call when they are
// known, else (a pending index) at the read. Other tensors stay intact.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "tests/errors/expect_error.h"

namespace {

using kerr::throws;
using kiln::IndexError;
using kiln::Tensor;

TEST(IndexErrors, DimOutOfRangeForReductions) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.sum({2}); }, {"[sum]", "2"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.sum({-3}); }, {"-3"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.mean({0, 5}); }, {"5"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.prod(2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.max(2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::min(x, -3); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.amax({7}); }, {"7"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.argmax(2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.argmin(-3); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::var(x, {2}); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::std(x, {-4}); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.softmax(2); }, {"2"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.log_softmax(-3); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.logsumexp({2}); }));
  EXPECT_TRUE(s.intact());
}

TEST(IndexErrors, DimOutOfRangeForShapeOps) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.transpose(0, 2); }, {"[transpose]", "2"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.unsqueeze(3); }, {"3"}));  // valid: [-3, 2]
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.unsqueeze(-4); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.squeeze(2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.select(2, 0); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.narrow(-3, 0, 1); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.slice(2, 0, 1); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.flatten(0, 2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.permute({0, 2}); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.split(1, 2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.chunk(2, -3); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::cat({x, x}, 2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::stack({x, x}, 3); }));  // valid: [-3, 2]
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.index_select(2, kiln::zeros({1}, kiln::kInt64)); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.gather(-3, kiln::zeros({1, 1}, kiln::kInt64)); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.size(2); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.stride(-3); }));
  EXPECT_TRUE(s.intact());
}

TEST(IndexErrors, DimOutOfRangeForCumsumSortTopk) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.cumsum(2); }, {"[cumsum]", "dim 2", "[2, 3]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::cumsum(x, -3, kiln::kFloat64); }, {"-3", "[2, 3]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.cumprod(-3); }, {"[cumprod]", "[2, 3]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.sort(2); }, {"[sort]", "[2, 3]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::argsort(x, -3, true); }, {"[argsort]", "[2, 3]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.topk(1, 2); }, {"[topk]", "[2, 3]"}));
  EXPECT_TRUE(s.intact());
}

TEST(IndexErrors, TopkKOutsideTheSizeOfDim) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.topk(4); }, {"[topk]", "k = 4", "size 3", "[2, 3]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.topk(3, 0); }, {"k = 3", "dim 0 of size 2"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::topk(x, -1); }, {"k = -1"}));
  EXPECT_TRUE(s.intact());
}

TEST(IndexErrors, ZeroDimTensorsAcceptOnlyDimZeroAndMinusOne) {
  kerr::Survivors s;
  Tensor z = kiln::scalar_tensor(1.0);
  EXPECT_NO_THROW((void)z.sum({0}));
  EXPECT_NO_THROW((void)z.sum({-1}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)z.sum({1}); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)z.select(0, 0); }));
  EXPECT_NO_THROW((void)z.cumsum(-1));
  EXPECT_TRUE(throws<IndexError>([&] { (void)z.sort(1); }, {"[sort]", "[]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)z.topk(2); }, {"[topk]", "k = 2", "size 1"}));
  // LibTorch: "index_select(): Index to scalar can have only 1 value"
  EXPECT_THROW((void)z.index_select(0, kiln::zeros({2}, kiln::kInt64)).item<float>(), kiln::Error);
  EXPECT_TRUE(s.intact());
}

TEST(IndexErrors, SelectIndexOutOfRange) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.select(0, 2); }, {"[select]", "2"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.select(1, -4); }, {"-4"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::select(x, 1, 3); }, {"3"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)kiln::zeros({0}).select(0, 0); }));
  EXPECT_NO_THROW((void)x.select(1, -3));
  EXPECT_TRUE(s.intact());
}

TEST(IndexErrors, NarrowRangeOutside) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.narrow(1, 2, 2); }, {"[narrow]"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.narrow(1, 4, 0); }));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.narrow(0, 0, -1); }));
  EXPECT_NO_THROW((void)x.narrow(1, 3, 0));
  EXPECT_TRUE(s.intact());
}

// A pending index (computed, not yet run): only the kernel sees its values.
TEST(IndexErrors, PendingIndexSelectValueOutOfRangeThrowsAtTheRead) {
  kerr::Survivors s;
  Tensor x = kiln::arange(6, kiln::kFloat32).reshape({2, 3});  // pending, like the failing op
  Tensor y;
  ASSERT_NO_THROW(y = x.index_select(1, kiln::tensor({0, 4}) + 1));
  EXPECT_TRUE(throws<IndexError>([&] { (void)y.to_vector<float>(); }, {"[index_select]", "5"}));
  EXPECT_THROW((void)y.to_vector<float>(), kiln::Error) << "a failed tensor must not read as garbage later";
  EXPECT_TRUE(s.intact());
  std::vector<float> xv;
  EXPECT_NO_THROW(xv = x.to_vector<float>()) << "the failing op's correct input was lost";
  EXPECT_EQ(xv, (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(IndexErrors, PendingNegativeIndexValueThrowsAtTheRead) {
  kerr::Survivors s;
  Tensor x = kiln::arange(6, kiln::kFloat32).reshape({2, 3});
  kiln::sync();
  Tensor z = x.index_select(0, kiln::tensor({1}) - 2);
  EXPECT_TRUE(throws<IndexError>([&] { (void)z.sum().item<float>(); }, {"-1"}));
  EXPECT_EQ(x.index_select(1, kiln::tensor({2})).sum().item<float>(), 7.0f);
}

TEST(IndexErrors, PendingGatherValueOutOfRangeThrowsAtTheRead) {
  kerr::Survivors s;
  Tensor x = kiln::arange(6, kiln::kFloat32).reshape({2, 3});
  kiln::sync();
  Tensor y;
  ASSERT_NO_THROW(y = x.gather(1, kiln::tensor({{0, 2}}) + 1));
  EXPECT_TRUE(throws<IndexError>([&] { (void)y.to_vector<float>(); }, {"[gather]", "3"}));
  EXPECT_TRUE(s.intact());
  EXPECT_EQ(x.gather(1, kiln::tensor({{2, 0}})).sum().item<float>(), 2.0f);
}

// An index whose values are known is checked at the call, as LibTorch does,
// with the kernel's message; nothing is recorded.
TEST(IndexErrors, SettledIndexValuesAreCheckedAtTheCall) {
  kerr::Survivors s;
  Tensor x = kiln::arange(6, kiln::kFloat32).reshape({2, 3});
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.index_select(1, kiln::tensor({0, 5})); },
                                 {"[index_select] index 5 is out of bounds for dimension 1 with size 3"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.index_select(0, kiln::tensor({-1}, kiln::kInt32)); }, {"-1"}));
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.gather(1, kiln::tensor({{0, 3}})); },
                                 {"[gather] index 3 is out of bounds for dimension 1 with size 3"}));
  Tensor settled = kiln::tensor({0, 4}) + 1;
  kiln::sync();
  EXPECT_TRUE(throws<IndexError>([&] { (void)x.index_select(1, settled); }, {"5"}));
  EXPECT_TRUE(s.intact());
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
