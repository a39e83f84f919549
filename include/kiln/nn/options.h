// Options structs of modules, losses and optimizers, written as LibTorch
// writes them: `LinearOptions(784, 10).bias(false)`. KILN_ARG declares one
// option with a chainable setter and a getter (LibTorch's TORCH_ARG).
#pragma once

/// `KILN_ARG(bool, bias) = true;` in an options struct gives `bias(bool)`
/// (returns the struct, to chain) and `bias()`.
#define KILN_ARG(T, name)                                          \
 public:                                                           \
  inline auto& name(const T& new_##name) {                         \
    this->name##_ = new_##name;                                    \
    return *this;                                                  \
  }                                                                \
  inline const T& name() const noexcept { return this->name##_; } \
                                                                   \
 private:                                                          \
  T name##_

namespace kiln {

/// How a loss reduces its per-element values: LibTorch's kNone / kMean / kSum.
/// kBatchMean (the sum over the batch size) is kl_div's alone.
enum class Reduction { None, Mean, Sum, BatchMean };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;
inline constexpr Reduction kBatchMean = Reduction::BatchMean;

/// Which fan nn::init's Kaiming initializers scale by.
enum class FanMode { FanIn, FanOut };
inline constexpr FanMode kFanIn = FanMode::FanIn;
inline constexpr FanMode kFanOut = FanMode::FanOut;

/// The nonlinearity a layer feeds, for nn::init::calculate_gain.
enum class Nonlinearity { Linear, Conv1D, Conv2D, Sigmoid, Tanh, ReLU, LeakyReLU };
inline constexpr Nonlinearity kLinear = Nonlinearity::Linear;
inline constexpr Nonlinearity kConv1D = Nonlinearity::Conv1D;
inline constexpr Nonlinearity kConv2D = Nonlinearity::Conv2D;
inline constexpr Nonlinearity kSigmoid = Nonlinearity::Sigmoid;
inline constexpr Nonlinearity kTanh = Nonlinearity::Tanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::ReLU;
inline constexpr Nonlinearity kLeakyReLU = Nonlinearity::LeakyReLU;

}  // namespace kiln
