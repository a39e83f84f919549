// Unsupported dtypes throw kiln::DtypeError naming the dtype; bad argument
// values throw kiln::ValueError. Both from the user's call, leaving other
// tensors intact.
#include <gtest/gtest.h>

#include <sstream>

#include <kiln/kiln.h>

#include "tests/errors/expect_error.h"

namespace {

using kerr::throws;
using kiln::DtypeError;
using kiln::Tensor;
using kiln::ValueError;

TEST(DtypeErrors, ArithmeticThatBoolDoesNotSupport) {
  kerr::Survivors s;
  Tensor b = kiln::tensor({true, false});
  EXPECT_TRUE(throws<DtypeError>([&] { (void)(b - b); }, {"[sub]", "Bool"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::sub(b, true); }, {"Bool"}));
  // One bool operand is enough, on either side, as LibTorch rejects it.
  Tensor f = kiln::ones({3, 2});
  EXPECT_TRUE(throws<DtypeError>([&] { (void)(f - b); },
                                 {"Subtraction, the `-` operator, with a bool tensor is not supported",
                                  "logical_not()", "Float [3, 2] and Bool [2]"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)(b - 1); }, {"Bool [2] and a number"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)(1 - b); }, {"Subtraction"}));
  EXPECT_TRUE(throws<DtypeError>([&] { f.sub_(b.expand({3, 2})); }, {"Subtraction"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)(-b); }, {"Bool"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)b.matmul(b); }, {"Bool"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)b.pow(b); }, {"Bool"}));
  EXPECT_NO_THROW((void)(b + b));
  EXPECT_TRUE(s.intact());
}

TEST(DtypeErrors, WhereWithANonBoolCondition) {
  kerr::Survivors s;
  Tensor x = kiln::ones({3});
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::where(x, x, x); }, {"[where]", "Float"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::where(kiln::tensor({1, 0, 1}), x, 0.0); }, {"Long"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::where(kiln::ones({3}, kiln::kInt32), 1, 2); }, {"Int"}));
  EXPECT_TRUE(s.intact());
}

TEST(DtypeErrors, MeanVarStdOfIntegerTensors) {
  kerr::Survivors s;
  Tensor i = kiln::tensor({1, 2, 3});
  EXPECT_TRUE(throws<DtypeError>([&] { (void)i.mean(); }, {"[mean]", "Long"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)i.mean({0}); }, {"Long"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::ones({2}, kiln::kInt32).mean(); }, {"Int"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::tensor({true}).mean(); }, {"Bool"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)i.var(); }, {"Long"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)kiln::std(i, {0}); }, {"Long"}));
  EXPECT_TRUE(s.intact());
}

TEST(DtypeErrors, IndexTensorsMustBeIntegral) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<DtypeError>([&] { (void)x.index_select(0, kiln::tensor({0.0f})); },
                                 {"[index_select]", "Float"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)x.gather(0, kiln::zeros({1, 3})); }, {"[gather]", "Float"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)x.index_select(0, kiln::tensor({true})); }, {"Bool"}));
  EXPECT_TRUE(s.intact());
}

TEST(DtypeErrors, InPlaceIntoADtypeThatCannotHoldTheResult) {
  kerr::Survivors s;
  Tensor i = kiln::ones({2}, kiln::kInt64);
  EXPECT_TRUE(throws<DtypeError>([&] { i.add_(0.5); }, {"Float", "Long"}));
  EXPECT_TRUE(throws<DtypeError>([&] { i.div_(i); }, {"Float", "Long"}));
  Tensor b = kiln::zeros({2}, kiln::kBool);
  EXPECT_TRUE(throws<DtypeError>([&] { b.mul_(2); }, {"Long", "Bool"}));
  EXPECT_EQ(i.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 1}));
  EXPECT_TRUE(s.intact());
}

TEST(DtypeErrors, DataPtrAndItemTypeMismatch) {
  kerr::Survivors s;
  Tensor f = kiln::ones({2});
  EXPECT_TRUE(throws<DtypeError>([&] { (void)f.data_ptr<double>(); }, {"Float", "Double"}));
  EXPECT_TRUE(throws<DtypeError>([&] { (void)f.data_ptr<std::int32_t>(); }, {"Float"}));
  EXPECT_NO_THROW((void)kiln::ones({1}).item<std::int64_t>());  // item converts
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, ItemAndBoolNeedExactlyOneElement) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<ValueError>([&] { (void)x.item<float>(); }, {"[item]", "[2, 3]"}));
  EXPECT_TRUE(throws<ValueError>([&] { (void)x.item(); }, {"[2, 3]"}));
  EXPECT_TRUE(throws<ValueError>([&] { (void)kiln::zeros({0}).item<float>(); }, {"[0]"}));
  EXPECT_TRUE(throws<ValueError>([&] { (void)static_cast<bool>(x > 0); }, {"[2, 3]"}));
  EXPECT_TRUE(throws<ValueError>(
      [&] {
        if (kiln::ones({2})) {
        }
      },
      {"[2]"}));
  EXPECT_NO_THROW((void)kiln::ones({1, 1}).item<float>());
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, FromBlobWithANullPointer) {
  kerr::Survivors s;
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::from_blob(nullptr, {2, 3}); }, {"[from_blob]"}));
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::from_blob(nullptr, {2}, {1}, kiln::kInt64); }));
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::from_blob(nullptr, {2}, [](void*) {}); }));
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, LimitsBelowOne) {
  kerr::Survivors s;
  EXPECT_TRUE(throws<ValueError>([] { kiln::set_trace_limit(0); }, {"0"}));
  EXPECT_TRUE(throws<ValueError>([] { kiln::set_trace_limit(-5); }, {"-5"}));
  EXPECT_TRUE(throws<ValueError>([] { kiln::set_num_threads(0); }, {"0"}));
  EXPECT_GE(kiln::get_num_threads(), 1);
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, UndefinedTensorsAreRejectedNotDereferenced) {
  kerr::Survivors s;
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_THROW((void)(u + 1), kiln::Error);
  EXPECT_THROW((void)u.sum(), kiln::Error);
  EXPECT_THROW((void)u.sizes(), kiln::Error);
  EXPECT_THROW((void)kiln::ones({2}).add(u), kiln::Error);
  EXPECT_THROW((void)u.to_vector<float>(), kiln::Error);
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, SliceStepAndChunkCountMustBePositive) {
  kerr::Survivors s;
  Tensor x = kiln::ones({6});
  EXPECT_TRUE(throws<ValueError>([&] { (void)x.slice(0, 0, 6, 0); }, {"[slice]", "0"}));
  EXPECT_TRUE(throws<ValueError>([&] { (void)x.slice(0, 0, 6, -1); }, {"-1"}));
  EXPECT_TRUE(throws<ValueError>([&] { (void)x.chunk(0); }, {"[chunk]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, WritingIntoAnExpandedViewIsRejected) {
  kerr::Survivors s;
  Tensor base = kiln::zeros({3, 1});
  Tensor e = base.expand({3, 4});
  EXPECT_TRUE(throws<ValueError>([&] { e.add_(1); }, {"[3, 4]"}));
  EXPECT_TRUE(throws<ValueError>([&] { e.fill_(2); }));
  EXPECT_TRUE(throws<ValueError>([&] { e.copy_(kiln::ones({3, 4})); }));
  EXPECT_EQ(base.sum().item<float>(), 0.0f);
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, DuplicateDimsInAReductionList) {
  kerr::Survivors s;
  Tensor x = kiln::ones({2, 3});
  EXPECT_TRUE(throws<ValueError>([&] { (void)x.sum({1, -1}); }, {"[sum]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, IntegerToANegativeIntegerPower) {
  // LibTorch: "Integers to negative integer powers are not allowed."
  kerr::Survivors s;
  EXPECT_THROW((void)kiln::tensor({2, 3}).pow(-1), kiln::Error);
  EXPECT_THROW((void)kiln::tensor({2, 3}, kiln::kInt32).pow(-2), kiln::Error);
  EXPECT_NO_THROW((void)kiln::tensor({2, 3}).pow(-1.0));  // a Float result is fine
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, CreationArgumentsOutOfTheirDomain) {
  kerr::Survivors s;
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::arange(0, 10, 0); }, {"[arange]"}));
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::arange(5, 0, 1); }, {"[arange]"}));
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::randint(5, 5, {3}); }, {"[randint]"}));
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::ones({4}).split(0); }, {"[split]"}));
  EXPECT_TRUE(s.intact());
}

TEST(ValueErrors, GeluApproximationMustBeNoneOrTanh) {
  kerr::Survivors s;
  EXPECT_TRUE(throws<ValueError>([] { (void)kiln::gelu(kiln::ones({2}), "sigmoid"); }, {"sigmoid"}));
  EXPECT_TRUE(s.intact());
}

}  // namespace
