// Reductions. sum/prod/amax/amin/argmax/argmin are primitives; mean, var,
// std, softmax, log_softmax and logsumexp are built from them.
#include <limits>

#include <kiln/error.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/formulas.h"
#include "frontend/autograd/function_node.h"
#include "frontend/autograd/op_node.h"
#include "frontend/handle.h"

namespace kiln {

using frontend::reduce;
using frontend::unwrap;
using frontend::wrap;
using trace::OpId;

Tensor frontend::reduce(OpId op, const Tensor& x, IntArrayRef dims, bool keepdim) {
  const auto& impl = unwrap(x, trace::name(op));
  Tensor out = wrap(trace::reduce(op, impl, dims, keepdim));
  if (autograd::needs_history({impl})) {
    trace::Attrs attrs;
    attrs.i[0] = trace::reduction_mask(dims, impl.geo.ndim, trace::name(op));
    attrs.i[1] = keepdim;
    autograd::record_op(op, {impl}, attrs, out);
  }
  return out;
}

namespace {

void require_float(const Tensor& x, const char* op) {
  if (!x.is_floating_point())
    throw DtypeError(detail::cat("[", op, "] needs a floating-point input, got ", x.dtype(),
                                 " (convert with .to(kiln::kFloat32))"));
}

// Elements folded into each output of a reduction over `dims`.
std::int64_t reduced_count(const Tensor& x, IntArrayRef dims, const char* op) {
  if (dims.empty()) return x.numel();
  std::int64_t n = 1;
  for (std::int64_t d : dims)
    if (x.dim() > 0) n *= x.size(trace::wrap_dim(d, static_cast<int>(x.dim()), op));
  return n;
}

}  // namespace

Tensor Tensor::sum() const { return reduce(OpId::Sum, *this, {}, false); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim) const { return reduce(OpId::Sum, *this, dims, keepdim); }
Tensor Tensor::prod() const { return reduce(OpId::Prod, *this, {}, false); }
Tensor Tensor::prod(std::int64_t dim, bool keepdim) const { return reduce(OpId::Prod, *this, dim, keepdim); }
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return reduce(OpId::Amax, *this, dims, keepdim); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return reduce(OpId::Amin, *this, dims, keepdim); }
Tensor Tensor::max() const { return amax(); }
Tensor Tensor::min() const { return amin(); }
std::tuple<Tensor, Tensor> Tensor::max(std::int64_t dim, bool keepdim) const {
  return {amax(dim, keepdim), argmax(dim, keepdim)};
}
std::tuple<Tensor, Tensor> Tensor::min(std::int64_t dim, bool keepdim) const {
  return {amin(dim, keepdim), argmin(dim, keepdim)};
}
Tensor Tensor::argmax(std::optional<std::int64_t> dim, bool keepdim) const {
  return dim ? reduce(OpId::Argmax, *this, *dim, keepdim) : reduce(OpId::Argmax, *this, {}, false);
}
Tensor Tensor::argmin(std::optional<std::int64_t> dim, bool keepdim) const {
  return dim ? reduce(OpId::Argmin, *this, *dim, keepdim) : reduce(OpId::Argmin, *this, {}, false);
}

Tensor Tensor::mean() const { return mean({}, false); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const {
  require_float(*this, "mean");
  double n = static_cast<double>(reduced_count(*this, dims, "mean"));
  bool track = autograd::any_requires_grad({*this});
  Tensor out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    out = sum(dims, keepdim) / n;
  }
  if (track) {
    std::int64_t mask = trace::reduction_mask(dims, static_cast<int>(dim()), "mean");
    std::vector<std::int64_t> shape = sizes().vec();
    autograd::record_function(dims.empty() ? "MeanBackward0" : "MeanBackward1", {*this}, out,
                              [shape, mask, keepdim, n](const Tensor& g, const autograd::variable_list&) {
                                return autograd::variable_list{autograd::expand_reduced(g, shape, mask, keepdim) / n};
                              });
  }
  return out;
}

Tensor Tensor::var_all(bool unbiased) const { return var(IntArrayRef{}, unbiased, false); }

Tensor Tensor::all() const { return (*this == 0).sum() == 0; }
Tensor Tensor::all(std::int64_t dim, bool keepdim) const { return (*this == 0).sum(dim, keepdim) == 0; }
Tensor Tensor::any() const { return (*this != 0).sum() != 0; }
Tensor Tensor::any(std::int64_t dim, bool keepdim) const { return (*this != 0).sum(dim, keepdim) != 0; }

Tensor Tensor::norm(Scalar p) const { return norm(p, IntArrayRef{}, false); }

Tensor Tensor::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  require_float(*this, "norm");
  const double pv = p.to<double>();
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (pv == inf) return abs().amax(dims, keepdim);
  if (pv == -inf) return abs().amin(dims, keepdim);
  if (pv == 0) return (*this != 0).to(dtype()).sum(dims, keepdim);
  if (pv == 1) return abs().sum(dims, keepdim);
  // The p-norm with LibTorch's gradient x |x|^(p-2) / norm^(p-1), which is
  // 0 where the norm is 0 (the chain through sqrt/pow would give NaN).
  bool track = autograd::any_requires_grad({*this});
  Tensor out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    out = pv == 2 ? (*this * *this).sum(dims, keepdim).sqrt() : abs().pow(pv).sum(dims, keepdim).pow(1 / pv);
  }
  if (track) {
    std::int64_t mask = trace::reduction_mask(dims, static_cast<int>(dim()), "norm");
    std::vector<std::int64_t> shape = sizes().vec();
    autograd::record_function(
        dims.empty() ? "NormBackward0" : "NormBackward1", {*this}, out,
        [shape, mask, keepdim, pv](const Tensor& g, const autograd::variable_list& saved) {
          const Tensor& x = saved[0];
          Tensor n = autograd::expand_reduced(saved[1], shape, mask, keepdim);
          Tensor scale = pv == 2 ? x / n : x * x.abs().pow(pv - 2) / n.pow(pv - 1);
          return autograd::variable_list{where(n == 0, 0.0, autograd::expand_reduced(g, shape, mask, keepdim) * scale)};
        },
        {*this}, true);
  }
  return out;
}

Tensor all(const Tensor& x) { return x.all(); }
Tensor any(const Tensor& x) { return x.any(); }
Tensor norm(const Tensor& x, Scalar p) { return x.norm(p); }
Tensor norm(const Tensor& x, Scalar p, IntArrayRef dims, bool keepdim) { return x.norm(p, dims, keepdim); }

Tensor Tensor::var(IntArrayRef dims, bool unbiased, bool keepdim) const {
  require_float(*this, "var");
  Tensor centered = *this - mean(dims, true);
  double n = static_cast<double>(reduced_count(*this, dims, "var")) - (unbiased ? 1.0 : 0.0);
  // n <= 0 divides by zero: inf or NaN, as LibTorch gives.
  return (centered * centered).sum(dims, keepdim) / std::max(n, 0.0);
}
Tensor Tensor::std_all(bool unbiased) const { return var_all(unbiased).sqrt(); }
Tensor Tensor::std(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return var(dims, unbiased, keepdim).sqrt();
}

// softmax and log_softmax have direct gradients (one saved value, two ops)
// instead of the chain through amax, exp, sum and div.
Tensor Tensor::softmax(std::int64_t dim) const {
  require_float(*this, "softmax");
  if (numel() == 0) return clone();  // nothing to normalize (amax has no identity)
  bool track = autograd::any_requires_grad({*this});
  Tensor out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    // Times the reciprocal of each row's sum, as LibTorch's kernel does: one
    // division a row instead of one an element (a vector division costs
    // several multiplications), and the sum is at least 1 (the largest
    // element's exp(0)), so its reciprocal never overflows.
    Tensor e = (*this - amax(dim, true)).exp();
    out = e * e.sum(dim, true).reciprocal();
  }
  if (track)
    autograd::record_function(
        "SoftmaxBackward0", {*this}, out,
        [dim](const Tensor& g, const autograd::variable_list& saved) {
          const Tensor& y = saved[0];
          return autograd::variable_list{y * (g - (g * y).sum(dim, true))};
        },
        {}, true);
  return out;
}

Tensor Tensor::log_softmax(std::int64_t dim) const {
  require_float(*this, "log_softmax");
  if (numel() == 0) return clone();
  bool track = autograd::any_requires_grad({*this});
  Tensor out;
  {
    autograd::AutoGradMode mode(!track && GradMode::is_enabled());
    Tensor shifted = *this - amax(dim, true);
    out = shifted - shifted.exp().sum(dim, true).log();
  }
  if (track)
    autograd::record_function(
        "LogSoftmaxBackward0", {*this}, out,
        [dim](const Tensor& g, const autograd::variable_list& saved) {
          return autograd::variable_list{g - saved[0].exp() * g.sum(dim, true)};
        },
        {}, true);
  return out;
}

Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  Tensor x = is_floating_point() ? *this : to(kDefaultFloat);
  if (reduced_count(x, dims, "logsumexp") == 0)  // log of an empty sum
    return x.sum(dims, keepdim).fill_(-std::numeric_limits<double>::infinity());
  Tensor m = x.amax(dims, true);
  // An all -inf (or +inf) slice must not turn into inf - inf = NaN.
  Tensor shift = where(m.abs() == std::numeric_limits<double>::infinity(), 0.0, m);
  Tensor out = (x - shift).exp().sum(dims, keepdim).log();
  return out + shift.reshape(out.sizes());
}

Tensor sum(const Tensor& x) { return x.sum(); }
Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim) { return x.sum(dims, keepdim); }
Tensor mean(const Tensor& x) { return x.mean(); }
Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim) { return x.mean(dims, keepdim); }
Tensor prod(const Tensor& x) { return x.prod(); }
Tensor max(const Tensor& x) { return x.max(); }
std::tuple<Tensor, Tensor> max(const Tensor& x, std::int64_t dim, bool keepdim) { return x.max(dim, keepdim); }
Tensor min(const Tensor& x) { return x.min(); }
std::tuple<Tensor, Tensor> min(const Tensor& x, std::int64_t dim, bool keepdim) { return x.min(dim, keepdim); }
Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) { return x.amax(dims, keepdim); }
Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) { return x.amin(dims, keepdim); }
Tensor argmax(const Tensor& x, std::optional<std::int64_t> dim, bool keepdim) { return x.argmax(dim, keepdim); }
Tensor argmin(const Tensor& x, std::optional<std::int64_t> dim, bool keepdim) { return x.argmin(dim, keepdim); }
Tensor var(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) { return x.var(dims, unbiased, keepdim); }
Tensor std(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) { return x.std(dims, unbiased, keepdim); }
Tensor softmax(const Tensor& x, std::int64_t dim) { return x.softmax(dim); }
Tensor log_softmax(const Tensor& x, std::int64_t dim) { return x.log_softmax(dim); }
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) { return x.logsumexp(dims, keepdim); }

}  // namespace kiln
