// Pooling, as LibTorch's torch::nn::MaxPool1d/2d, AvgPool1d/2d and
// AdaptiveAvgPool1d/2d, their functional forms and free functions. Max and
// average pooling reduce across the windows taken as columns by one Im2col
// op (frontend/nn/windows.h); max pooling takes the first maximum of each
// window (a NaN counts as the maximum), so its gradient goes to that one
// element, as LibTorch's. Adaptive average pooling
// is one averaging matrix per spatial dim (a GEMM each).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>

#include <kiln/nn/expanding_array.h>
#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln::nn {

template <std::size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  KILN_ARG(ExpandingArray<D>, kernel_size);
  /// Defaults to the kernel size.
  KILN_ARG(ExpandingArray<D>, stride);
  /// -inf added on both sides; at most half the kernel.
  KILN_ARG(ExpandingArray<D>, padding) = 0;
  KILN_ARG(ExpandingArray<D>, dilation) = 1;
  /// Rounds the output size up: a last, partial window.
  KILN_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

template <std::size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  KILN_ARG(ExpandingArray<D>, kernel_size);
  KILN_ARG(ExpandingArray<D>, stride);
  KILN_ARG(ExpandingArray<D>, padding) = 0;
  KILN_ARG(bool, ceil_mode) = false;
  /// Whether the zero padding counts in each window's divisor.
  KILN_ARG(bool, count_include_pad) = true;
  /// A fixed divisor for every window instead.
  KILN_ARG(std::optional<std::int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

template <std::size_t D>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}
  KILN_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;

/// Input [N, C, *spatial] or unbatched [C, *spatial].
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
}  // namespace functional

// The module forms: forward(input) calls the functional form with the options.
#define KILN_POOL_MODULE(Name, OptionsT, fn)                                                        \
  class Name##Impl : public Module {                                                               \
   public:                                                                                         \
    explicit Name##Impl(const OptionsT& options_) : Module("kiln::nn::" #Name), options(options_) {} \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); }                \
    void pretty_print(std::ostream& stream) const override;                                       \
    OptionsT options;                                                                              \
  };                                                                                               \
  KILN_MODULE(Name)

KILN_POOL_MODULE(MaxPool1d, MaxPool1dOptions, max_pool1d);
KILN_POOL_MODULE(MaxPool2d, MaxPool2dOptions, max_pool2d);
KILN_POOL_MODULE(AvgPool1d, AvgPool1dOptions, avg_pool1d);
KILN_POOL_MODULE(AvgPool2d, AvgPool2dOptions, avg_pool2d);
KILN_POOL_MODULE(AdaptiveAvgPool1d, AdaptiveAvgPool1dOptions, adaptive_avg_pool1d);
KILN_POOL_MODULE(AdaptiveAvgPool2d, AdaptiveAvgPool2dOptions, adaptive_avg_pool2d);

#undef KILN_POOL_MODULE

}  // namespace kiln::nn

namespace kiln {

/// LibTorch's free functions (ATen's argument order); an empty stride means
/// the kernel size, a one-element list applies to every spatial dim.
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<std::int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);

}  // namespace kiln
