// Autograd's errors: each a kiln::Error subclass from the call the user
// wrote, with the shapes in the message, where LibTorch rejects the same.
#include "tests/errors/expect_error.h"

namespace {

using kerr::throws;
using kiln::Tensor;

TEST(AutogradErrors, BackwardOfANonScalarNeedsAGradient) {
  Tensor x = kiln::ones({2, 3}, kiln::requires_grad());
  Tensor y = x * 2;
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { y.backward(); },
                                          {"grad can be implicitly created only for scalar outputs", "[2, 3]"}));
}

TEST(AutogradErrors, BackwardOfATensorThatDoesNotRequireGrad) {
  Tensor x = kiln::ones({2});
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { (x * 2).sum().backward(); },
                                          {"does not require grad and does not have a grad_fn"}));
}

TEST(AutogradErrors, GradientOfTheWrongShapeOrDtype) {
  Tensor x = kiln::ones({3}, kiln::requires_grad());
  Tensor y = x * 2;
  EXPECT_TRUE(throws<kiln::ShapeError>([&] { y.backward(kiln::ones({2})); },
                                       {"Mismatch in shape", "[2]", "[3]"}));
  EXPECT_TRUE(throws<kiln::DtypeError>([&] { y.backward(kiln::ones({3}, kiln::kInt64)); }, {"Long", "Float"}));
}

TEST(AutogradErrors, InPlaceOnALeafThatRequiresGrad) {
  Tensor x = kiln::ones({2, 2}, kiln::requires_grad());
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { x.add_(1); }, {"leaf Variable that requires grad", "[2, 2]"}));
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { x.narrow(0, 0, 1).mul_(2); }, {"view of a leaf Variable"}));
  kiln::NoGradGuard guard;  // what optimizers do: allowed without history
  x.add_(1);
  EXPECT_EQ(x.to_vector<float>(), std::vector<float>(4, 2));
}

TEST(AutogradErrors, SecondBackwardThroughFreedValues) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  Tensor y = (x.exp() * x).sum();
  y.backward();
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { y.backward(); }, {"backward through the graph a second time"}));
}

TEST(AutogradErrors, RequiresGradOnIntegerTensors) {
  EXPECT_TRUE(throws<kiln::DtypeError>([] { kiln::arange(3).requires_grad_(); },
                                       {"only Tensors of floating point dtype can require gradients", "Long", "[3]"}));
  EXPECT_TRUE(throws<kiln::DtypeError>(
      [] { kiln::zeros({2}, kiln::TensorOptions(kiln::kInt32).requires_grad(true)); }, {"floating point"}));
}

TEST(AutogradErrors, SavedTensorModifiedInPlace) {
  Tensor x = kiln::ones({3}, kiln::requires_grad());
  Tensor h = x * 2;
  Tensor y = h.exp();  // saves its result
  y.add_(1);
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { y.sum().backward(); },
                                          {"modified by an inplace operation", "[Float [3]]", "ExpBackward0",
                                           "is at version 1; expected version 0"}));
  Tensor a = x * 1.0;
  Tensor b = a * a;  // saves a
  a.mul_(2);
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { b.sum().backward(); }, {"MulBackward0", "version 1"}));
}

TEST(AutogradErrors, NonLeafFlagsAndUnusedInputs) {
  Tensor x = kiln::ones({2}, kiln::requires_grad());
  Tensor y = x * 2;
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { y.requires_grad_(false); }, {"leaf variables", "[2]"}));
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { kiln::ones({2}).retain_grad(); }, {"requires_grad=False"}));
  Tensor unused = kiln::ones({4}, kiln::requires_grad());
  EXPECT_TRUE(throws<kiln::AutogradError>([&] { kiln::autograd::grad({y.sum()}, {unused}); },
                                          {"not have been used in the graph", "[4]"}));
}

}  // namespace
