// kiln::nn::Functional: LibTorch's torch::nn::Functional, a function of a
// Tensor wrapped as a module, so free functions and lambdas can sit in a
// Sequential. Extra arguments are bound after the input, as LibTorch does:
//
//   Sequential net(Linear(3, 4), Functional(torch::relu), Functional(torch::softmax, /*dim=*/1));
#pragma once

#include <functional>
#include <iosfwd>
#include <utility>

#include <kiln/nn/module.h>

namespace kiln::nn {

class FunctionalImpl : public Module {
 public:
  using Function = std::function<Tensor(Tensor)>;

  /// ValueError for an empty function.
  explicit FunctionalImpl(Function function);
  /// `original_function(input, args...)`.
  template <class F, class Arg, class... Args>
  explicit FunctionalImpl(F original_function, Arg&& arg, Args&&... args)
      : FunctionalImpl(Function(std::bind(original_function, std::placeholders::_1, std::forward<Arg>(arg),
                                          std::forward<Args>(args)...))) {}

  /// The function applied to `input`.
  Tensor forward(Tensor input);
  /// "kiln::nn::Functional()".
  void pretty_print(std::ostream& stream) const override;

 private:
  Function function_;
};
KILN_MODULE(Functional);

}  // namespace kiln::nn
