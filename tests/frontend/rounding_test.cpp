// floor, ceil, round, trunc and sign against the C library, every dtype;
// in-place forms; their (zero) gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

const std::vector<double> kX = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.2, 3.0, -0.0, 1e300, -7.49};

std::vector<double> values(const Tensor& t) { return t.to(kiln::kFloat64).to_vector<double>(); }

TEST(Rounding, FloatingDtypesMatchTheCLibrary) {
  using Fn = Tensor (*)(const Tensor&);
  const std::pair<Fn, double (*)(double)> ops[] = {
      {kiln::floor, [](double x) { return std::floor(x); }},
      {kiln::ceil, [](double x) { return std::ceil(x); }},
      {kiln::round, [](double x) { return std::nearbyint(x); }},  // halves to even
      {kiln::trunc, [](double x) { return std::trunc(x); }}};
  for (kiln::ScalarType t : {kiln::kFloat32, kiln::kFloat64}) {
    Tensor x = kiln::tensor(kX, kiln::kFloat64).to(t);
    std::vector<double> xs = values(x);
    for (auto [op, ref] : ops) {
      Tensor y = op(x);
      EXPECT_EQ(y.dtype(), t);
      std::vector<double> got = values(y);
      for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(got[i], ref(xs[i])) << i;
      // Through a transposed view: the same elements.
      EXPECT_EQ(values(op(x.reshape({3, 4}).t()).t().flatten()), got);
    }
  }
  EXPECT_EQ(values(kiln::tensor({0.5, 1.5, 2.5}).round()), (std::vector<double>{0, 2, 2}));
}

TEST(Rounding, IntegersAreCopiedAndBoolIsRejected) {
  Tensor i = kiln::tensor({-3, 0, 7});
  for (Tensor y : {i.floor(), i.ceil(), i.round(), i.trunc()}) {
    EXPECT_EQ(y.dtype(), kiln::kInt64);
    EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-3, 0, 7}));
    EXPECT_FALSE(y.is_same_storage(i));
  }
  EXPECT_THROW(kiln::tensor({true, false}).floor(), kiln::DtypeError);
}

TEST(Rounding, InPlaceForms) {
  Tensor x = kiln::tensor({-1.5, 0.4, 2.6}, kiln::kFloat64);
  Tensor v = x;
  x.floor_();
  EXPECT_EQ(values(v), (std::vector<double>{-2, 0, 2}));
  Tensor y = kiln::tensor({-1.5, 0.4, 2.6}, kiln::kFloat64);
  y.narrow(0, 1, 2).ceil_();
  EXPECT_EQ(values(y), (std::vector<double>{-1.5, 1, 3}));
  y.sign_();
  EXPECT_EQ(values(y), (std::vector<double>{-1, 1, 1}));
}

TEST(Sign, EveryDtypeAndNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(values(kiln::tensor({-2.5, 0.0, 3.0, nan}).sign()), (std::vector<double>{-1, 0, 1, 0}));
  Tensor i = kiln::tensor({-4, 0, 9}).sign();
  EXPECT_EQ(i.dtype(), kiln::kInt64);
  EXPECT_EQ(i.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-1, 0, 1}));
  Tensor b = kiln::sign(kiln::tensor({true, false}));
  EXPECT_EQ(b.dtype(), kiln::kBool);
}

TEST(Rounding, GradientsAreZeroWithLibTorchsNodeNames) {
  Tensor x = kiln::tensor({-1.3, 0.6, 2.2}, kiln::TensorOptions(kiln::kFloat64).requires_grad(true));
  EXPECT_EQ(x.floor().grad_fn()->name(), "FloorBackward0");
  EXPECT_EQ(x.round().grad_fn()->name(), "RoundBackward0");
  EXPECT_EQ(x.sign().grad_fn()->name(), "SignBackward0");
  (x.floor() + x.ceil() + x.round() + x.trunc() + x.sign() + x).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 1, 1}));
}

}  // namespace
