// kiln::Tensor: the handle user code works with, named and behaving like
// LibTorch's torch::Tensor.
//
// A Tensor is a cheap, shared handle: copies alias the same data, as in
// LibTorch. Every op returns at once; it is recorded into the calling
// thread's trace buffer and run when a value is needed (item(), data_ptr(),
// to_vector(), printing, conversion to bool, kiln::sync()). Shape and dtype
// errors are thrown by the op call itself, never later. Views (view,
// transpose, slice, ...) share storage with their base: writes through one
// are seen by the other, however reads and writes are deferred.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <kiln/array_ref.h>
#include <kiln/dtype.h>
#include <kiln/frontend/options.h>
#include <kiln/scalar.h>

namespace kiln {
namespace trace {
struct TensorImpl;
}
namespace autograd {
class Node;
}
namespace indexing {
class TensorIndex;
}

class Tensor {
 public:
  /// An undefined tensor (defined() is false), like LibTorch's default.
  Tensor() = default;
  explicit Tensor(std::shared_ptr<trace::TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  /// Assigning to a named tensor rebinds the handle; assigning to a
  /// temporary (`x[0] = y`, `t.index({...}) = 1`, `p.grad().data() = g`)
  /// writes the values into the tensor it views, as in LibTorch.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& values) && { return copy_(values); }
  Tensor& operator=(Tensor&& values) && { return copy_(values); }
  Tensor& operator=(Scalar value) && { return fill_(value); }
  ~Tensor() = default;

  // --- Queries (no materialization) -----------------------------------
  bool defined() const { return impl_ != nullptr; }
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  /// Size of dim `d` (negative counts from the end).
  std::int64_t size(std::int64_t d) const;
  std::int64_t stride(std::int64_t d) const;
  std::int64_t dim() const;
  std::int64_t numel() const;
  ScalarType dtype() const;
  ScalarType scalar_type() const { return dtype(); }
  std::size_t element_size() const { return kiln::element_size(dtype()); }
  bool is_contiguous() const;
  bool is_floating_point() const { return kiln::is_floating_point(dtype()); }
  TensorOptions options() const { return TensorOptions(dtype()); }
  /// Every kiln tensor lives on the CPU (kiln/device.h).
  Device device() const;
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  /// True when both share one storage (a view and its base).
  bool is_same_storage(const Tensor& other) const;
  /// Whether both handles refer to the same tensor (LibTorch's is_same).
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }

  // --- Reading values (each is a materialization point) ---------------
  /// The single element, converted to T. kiln::ValueError unless numel() == 1.
  template <class T>
  T item() const;
  Scalar item() const;
  /// Pointer to the first element; T must match dtype(). Writing through it
  /// is allowed (pending readers of this data run first).
  template <class T>
  T* data_ptr() const;
  /// The elements in row-major order (kiln's addition), converted to T.
  template <class T>
  std::vector<T> to_vector() const;
  /// Python's bool(t): kiln::ValueError unless numel() == 1.
  explicit operator bool() const;

  // --- Conversions and copies -----------------------------------------
  Tensor to(ScalarType dtype) const;
  /// LibTorch's to(device[, dtype]): on the CPU this is the tensor itself
  /// (or to(dtype)); `copy` forces a new tensor. A CUDA device is a
  /// ValueError. `non_blocking` has nothing to overlap on the CPU.
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  /// The tensor itself: it already lives on the CPU.
  Tensor cpu() const;
  Tensor clone() const;
  Tensor contiguous() const;

  // --- Autograd (kiln/autograd.h) ----------------------------------------
  /// True for a leaf that asked for gradients and for every result computed
  /// from one while gradient mode was on.
  bool requires_grad() const;
  /// Marks a leaf as requiring gradients (floating-point dtypes only).
  Tensor& requires_grad_(bool requires_grad = true);
  void set_requires_grad(bool requires_grad) { requires_grad_(requires_grad); }
  /// The accumulated gradient (undefined until a backward reaches it).
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  /// True unless the tensor was computed from one that requires grad.
  bool is_leaf() const;
  /// Keeps the gradient of a non-leaf in grad() on the next backward.
  void retain_grad() const;
  bool retains_grad() const;
  /// The node that computed this tensor (null for leaves).
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Which output of grad_fn() this tensor is.
  std::int64_t output_nr() const;
  /// In-place writes recorded into this tensor's storage so far.
  std::uint32_t _version() const;
  /// Gradients of this tensor with respect to the graph leaves (or `inputs`),
  /// accumulated into their grad(); `gradient` may be omitted for scalars.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, std::optional<std::vector<Tensor>> inputs = std::nullopt) const;
  /// The same data with no gradient history (shares storage).
  Tensor detach() const;
  /// LibTorch's data(): the same data, outside autograd (as detach()).
  /// Unlike LibTorch, a write through it still bumps the storage's version,
  /// so a backward that saved the tensor reports it modified.
  Tensor data() const { return detach(); }
  /// Cuts this tensor from its history in place: it becomes a leaf that does not require grad.
  Tensor& detach_();
  /// Makes this tensor hold `new_data`'s values, dtype and shape (LibTorch's
  /// set_data): every handle of it sees them; its autograd state (requires
  /// grad, .grad) stays. How Module::to converts parameters in place.
  void set_data(const Tensor& new_data) const;

  // --- Elementwise ------------------------------------------------------
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor add(Scalar other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(Scalar other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(Scalar other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(Scalar other) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor log1p() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  /// 1 / x, in a floating dtype (integers are promoted, as LibTorch).
  Tensor reciprocal() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor erf() const;
  /// Rounding to whole numbers, in the tensor's dtype (integers are copied);
  /// round() takes halves to even, as LibTorch. Gradients are zero.
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  /// -1, 0 or 1 by the sign of each element (0 for NaN).
  Tensor sign() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  /// Division remainders and quotients, LibTorch's: fmod has the dividend's
  /// sign (C's fmod), remainder (and `%`) the divisor's; floor_divide rounds
  /// the quotient toward -inf and has no gradient. Integer division by zero
  /// throws ValueError ("ZeroDivisionError"): from this call when the
  /// divisor is a number or an already computed tensor, else when the
  /// result is computed.
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(Scalar other) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(Scalar other) const;
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(Scalar other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor eq(const Tensor& other) const;
  Tensor eq(Scalar other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(Scalar other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(Scalar other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(Scalar other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(Scalar other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(Scalar other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_not() const;

  // --- Reductions (dims may be negative; empty dims = all) -------------
  Tensor sum() const;
  Tensor sum(IntArrayRef dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(IntArrayRef dims, bool keepdim = false) const;
  Tensor prod() const;
  Tensor prod(std::int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(std::int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(std::int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false) const;
  /// Variance with Bessel's correction when `unbiased` (LibTorch's default).
  Tensor var() const { return var(true); }
  /// Whole-tensor form. Only a real bool binds here, so `x.var({1})`
  /// means dims {1} as in LibTorch, not `unbiased = true`.
  template <class B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
  Tensor var(B unbiased) const {
    return var_all(unbiased);
  }
  Tensor var(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  /// Whether every element is nonzero (a bool tensor): of the whole tensor, or along `dim`.
  Tensor all() const;
  Tensor all(std::int64_t dim, bool keepdim = false) const;
  /// Whether some element is nonzero.
  Tensor any() const;
  Tensor any(std::int64_t dim, bool keepdim = false) const;
  /// The p-norm of the whole tensor, or over `dims`: p = 2 (default), 1,
  /// inf (largest |x|), -inf (smallest |x|), 0 (count of nonzeros) or any
  /// other p. Its gradient is 0 where the norm is 0, as LibTorch's.
  Tensor norm(Scalar p = 2) const;
  Tensor norm(Scalar p, IntArrayRef dims, bool keepdim = false) const;
  Tensor std() const { return std(true); }
  /// Whole-tensor form. Only a real bool binds here, so `x.std({1})`
  /// means dims {1} as in LibTorch, not `unbiased = true`.
  template <class B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
  Tensor std(B unbiased) const {
    return std_all(unbiased);
  }
  Tensor std(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor softmax(std::int64_t dim) const;
  Tensor log_softmax(std::int64_t dim) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;

  // --- Linear algebra ---------------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor t() const;

  // --- Shape and views (share storage with *this) -----------------------
  Tensor view(IntArrayRef shape) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;
  Tensor squeeze() const;
  Tensor squeeze(std::int64_t dim) const;
  Tensor unsqueeze(std::int64_t dim) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor slice(std::int64_t dim = 0, std::optional<std::int64_t> start = std::nullopt,
               std::optional<std::int64_t> end = std::nullopt, std::int64_t step = 1) const;
  Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  Tensor select(std::int64_t dim, std::int64_t index) const;
  /// Copies (not a view), as in LibTorch.
  Tensor index_select(std::int64_t dim, const Tensor& index) const;
  Tensor gather(std::int64_t dim, const Tensor& index) const;
  /// A copy of *this with src[p] added at p with p[dim] = index[p] (LibTorch's
  /// scatter_add; index Long, no larger than src). Repeated positions add up.
  Tensor scatter_add(std::int64_t dim, const Tensor& index, const Tensor& src) const;
  /// Running sums along `dim` (LibTorch's cumsum): out[i] = x[0] + ... + x[i].
  /// Computed in `dtype` if given (the input is cast first), else in the
  /// input's type, integral and bool inputs in Long. Gradient: CumsumBackward0.
  Tensor cumsum(std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  /// Running products along `dim` (LibTorch's cumprod), with cumsum's dtype
  /// rule. Its gradient (CumprodBackward0) is exact where inputs are zero;
  /// a second derivative is exact only away from zeros.
  Tensor cumprod(std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  /// (values, Long indices) of each line along `dim` sorted ascending, or
  /// descending (LibTorch's sort). NaN sorts as greater than every number.
  /// kiln's sort is always stable: equal elements keep their input order.
  std::tuple<Tensor, Tensor> sort(std::int64_t dim = -1, bool descending = false) const;
  /// LibTorch's overload with `stable` first; every kiln sort is stable.
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, std::int64_t dim = -1, bool descending = false) const;
  /// The Long indices that sort each line along `dim` (sort's second result).
  Tensor argsort(std::int64_t dim = -1, bool descending = false) const;
  /// (values, Long indices) of the k largest (or, with largest = false,
  /// smallest) elements along `dim`, in sorted order (LibTorch's topk; with
  /// sorted = false LibTorch leaves the order open, kiln still sorts). NaN
  /// counts as the largest. IndexError when k is not in [0, size of dim].
  std::tuple<Tensor, Tensor> topk(std::int64_t k, std::int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  /// `value` where `mask` (Bool) holds: kiln::masked_fill.
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  std::vector<Tensor> split(std::int64_t split_size, std::int64_t dim = 0) const;
  /// LibTorch's indexing (kiln/frontend/indexing.h): x.index({Slice(), 0}) is
  /// x[:, 0]. Integers, slices, None and "..." give views; tensor indices
  /// (long, or a bool mask) copy.
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  /// x[i] = x.select(0, i); x[t] = x.index({t}).
  Tensor operator[](std::int64_t i) const;
  Tensor operator[](const Tensor& i) const;
  /// x[indices] = value. Basic indices write through the view (value
  /// broadcasts); a single bool mask writes one value where it is true.
  /// Integer tensor indices are an IndexError.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, Scalar value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, Scalar value);
  std::vector<Tensor> chunk(std::int64_t chunks, std::int64_t dim = 0) const;

  // --- In place (return *this) ------------------------------------------
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& add_(Scalar other, Scalar alpha = 1);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(Scalar other, Scalar alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(Scalar other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(Scalar other);
  Tensor& fmod_(const Tensor& other);
  Tensor& fmod_(Scalar other);
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(Scalar other);
  Tensor& floor_divide_(const Tensor& other);
  Tensor& floor_divide_(Scalar other);
  Tensor& zero_();
  Tensor& fill_(Scalar value);
  Tensor& copy_(const Tensor& src);
  /// Values drawn uniformly from [from, to) (normally with `mean` and `std`)
  /// by kiln's generator (manual_seed); floating-point tensors only.
  Tensor& uniform_(double from = 0, double to = 1);
  Tensor& normal_(double mean = 0, double std = 1);
  /// Comparisons written into the tensor as 1 and 0 of its own dtype.
  Tensor& eq_(const Tensor& other);
  Tensor& eq_(Scalar other);
  Tensor& ne_(const Tensor& other);
  Tensor& ne_(Scalar other);
  Tensor& lt_(const Tensor& other);
  Tensor& lt_(Scalar other);
  Tensor& le_(const Tensor& other);
  Tensor& le_(Scalar other);
  Tensor& gt_(const Tensor& other);
  Tensor& gt_(Scalar other);
  Tensor& ge_(const Tensor& other);
  Tensor& ge_(Scalar other);
  Tensor& scatter_add_(std::int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& masked_fill_(const Tensor& mask, Scalar value);
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor& relu_();
  Tensor& floor_();
  Tensor& ceil_();
  Tensor& round_();
  Tensor& trunc_();
  Tensor& sign_();

  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator+=(Scalar o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator-=(Scalar o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator*=(Scalar o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  Tensor& operator/=(Scalar o) { return div_(o); }

  /// The implementation (for kiln's own layers and tests).
  const std::shared_ptr<trace::TensorImpl>& impl() const { return impl_; }

 private:
  Tensor var_all(bool unbiased) const;
  Tensor std_all(bool unbiased) const;
  const trace::TensorImpl& checked() const;
  std::shared_ptr<trace::TensorImpl> impl_;
};

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator/(Scalar a, const Tensor& b);
/// remainder, as LibTorch's `%`.
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, Scalar b);

/// Prints values and shape like LibTorch (a materialization point).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace kiln
