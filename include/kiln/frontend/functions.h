// Free op functions, as LibTorch's torch:: namespace has them. Each has the
// semantics of the Tensor method of the same name (kiln/frontend/tensor.h).
#pragma once

#include <string>
#include <vector>

#include <kiln/frontend/tensor.h>

namespace kiln {

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor add(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, Scalar b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, Scalar b);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
/// The error function (gelu's gradient uses it).
Tensor erf(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
/// x where x > 0, else negative_slope * x (its gradient: 1 or negative_slope).
Tensor leaky_relu(const Tensor& x, Scalar negative_slope = 0.01);
Tensor& leaky_relu_(Tensor& x, Scalar negative_slope = 0.01);
/// GELU; `approximate` is "none" (erf form, LibTorch's default) or "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);
/// log(sigmoid(x)) without overflow, with its exact gradient sigmoid(-x) everywhere.
Tensor log_sigmoid(const Tensor& x);
Tensor pow(const Tensor& x, const Tensor& exponent);
Tensor pow(const Tensor& x, Scalar exponent);
Tensor pow(Scalar base, const Tensor& exponent);
/// See Tensor::fmod, remainder, floor_divide.
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, Scalar b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
Tensor remainder(Scalar a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, Scalar b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
/// Elements of `a` where `condition` (a Bool tensor) holds, else of `b`.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
Tensor where(const Tensor& condition, Scalar a, Scalar b);
/// `value` where `mask` (Bool, broadcasting to x) holds, else x; the value
/// is a number or a 0-dim tensor, as in LibTorch.
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);
/// Long [..., num_classes] with a 1 at each value of x (Long); -1 infers
/// num_classes as max + 1. Reads x's values to check the range.
Tensor one_hot(const Tensor& x, std::int64_t num_classes = -1);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);

Tensor sum(const Tensor& x);
Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim = false);
Tensor prod(const Tensor& x);
Tensor max(const Tensor& x);
std::tuple<Tensor, Tensor> max(const Tensor& x, std::int64_t dim, bool keepdim = false);
Tensor min(const Tensor& x);
std::tuple<Tensor, Tensor> min(const Tensor& x, std::int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& x, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
/// Whole-tensor variance and standard deviation. Only a real bool binds
/// here, so that `var(x, {1})` reduces dim 1.
template <class B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
Tensor var(const Tensor& x, B unbiased) {
  return x.var(unbiased);
}
template <class B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
Tensor std(const Tensor& x, B unbiased) {
  return x.std(unbiased);
}
inline Tensor var(const Tensor& x) { return x.var(); }
inline Tensor std(const Tensor& x) { return x.std(); }
Tensor all(const Tensor& x);
Tensor any(const Tensor& x);
Tensor norm(const Tensor& x, Scalar p = 2);
Tensor norm(const Tensor& x, Scalar p, IntArrayRef dims, bool keepdim = false);
Tensor softmax(const Tensor& x, std::int64_t dim);
Tensor log_softmax(const Tensor& x, std::int64_t dim);
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);

/// LibTorch's matmul: 1-D operands are promoted to matrices and the added
/// dim removed again; batch dims broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
/// 2-D x 2-D only.
Tensor mm(const Tensor& a, const Tensor& b);
/// 3-D x 3-D with equal batch sizes.
Tensor bmm(const Tensor& a, const Tensor& b);
/// beta * self + alpha * (m1 @ m2).
Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, Scalar beta = 1, Scalar alpha = 1);

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim = 0);
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src);
Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index);
Tensor cumsum(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
std::tuple<Tensor, Tensor> sort(const Tensor& x, std::int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, std::int64_t dim = -1,
                                bool descending = false);
Tensor argsort(const Tensor& x, std::int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> topk(const Tensor& x, std::int64_t k, std::int64_t dim = -1, bool largest = true,
                                bool sorted = true);
Tensor reshape(const Tensor& x, IntArrayRef shape);
Tensor flatten(const Tensor& x, std::int64_t start_dim = 0, std::int64_t end_dim = -1);
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, std::int64_t dim);
Tensor unsqueeze(const Tensor& x, std::int64_t dim);
Tensor permute(const Tensor& x, IntArrayRef dims);
Tensor transpose(const Tensor& x, std::int64_t dim0, std::int64_t dim1);
Tensor t(const Tensor& x);
Tensor narrow(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t length);
Tensor select(const Tensor& x, std::int64_t dim, std::int64_t index);
Tensor clone(const Tensor& x);

namespace nn::functional {
/// x @ weight^T + bias (bias optional: pass an undefined Tensor).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor softmax(const Tensor& x, std::int64_t dim);
Tensor log_softmax(const Tensor& x, std::int64_t dim);
inline Tensor logsigmoid(const Tensor& x) { return log_sigmoid(x); }
Tensor one_hot(const Tensor& x, std::int64_t num_classes = -1);
}  // namespace nn::functional

}  // namespace kiln
