// Creation functions. Filled and generated tensors are recorded ops (Fill,
// Iota, Rand*, ...) like any other; tensor() and from_blob() hold data at once.
#include <atomic>
#include <cmath>
#include <cstring>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/handle.h"
#include "trace/record_util.h"

namespace kiln {

using frontend::wrap;
using trace::OpId;

namespace {

// LibTorch's default seed, so an unseeded program is reproducible too.
constexpr std::uint64_t kDefaultSeed = 67280421310721ull;

struct Generator {
  std::atomic<std::uint64_t> seed{kDefaultSeed};
  std::atomic<std::uint64_t> offset{0};
};

Generator& generator() {
  static Generator g;
  return g;
}

ScalarType checked_options(const TensorOptions& o, const char* name) {
  detail::check_device(o.device(), name);
  return o.dtype();
}

// requires_grad(true) in the options makes the new tensor a leaf that
// requires grad (a DtypeError for non-floating dtypes, as in LibTorch).
Tensor with_grad(Tensor t, const TensorOptions& o) {
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
Tensor with_grad(Tensor t, const std::optional<TensorOptions>& o) { return o ? with_grad(std::move(t), *o) : t; }

Tensor make(OpId op, IntArrayRef size, ScalarType dtype, std::initializer_list<Scalar> params, const char* name) {
  return wrap(trace::create(op, size, dtype, params, name));
}

// Draws a fresh range of the generator's stream for `size` elements.
Tensor random(OpId op, IntArrayRef size, const TensorOptions& options, const char* name) {
  ScalarType dtype = checked_options(options, name);
  if (!is_floating_point(dtype))
    throw DtypeError(detail::cat("[", name, "] expects a floating-point dtype, got ", dtype));
  std::int64_t n = trace::Geometry::contiguous(size, name).numel();
  Generator& g = generator();
  // Each element i uses counter offset + i, so later draws never reuse numbers.
  std::uint64_t offset = g.offset.fetch_add(static_cast<std::uint64_t>(n));
  return with_grad(make(op, size, dtype,
                        {Scalar(static_cast<std::int64_t>(g.seed.load())), Scalar(static_cast<std::int64_t>(offset))},
                        name),
                   options);
}


// full() under the name the user called (zeros, ones, full, ...).
Tensor filled(IntArrayRef size, Scalar value, std::optional<TensorOptions> options, const char* name) {
  ScalarType dtype = options ? checked_options(*options, name)
                     : value.is_floating_point() ? kDefaultFloat
                     : value.is_bool()           ? ScalarType::Bool
                                                 : ScalarType::Int64;
  return with_grad(make(OpId::Fill, size, dtype, {value}, name), options);
}

}  // namespace

void manual_seed(std::uint64_t seed) {
  generator().seed.store(seed);
  generator().offset.store(0);
}

Tensor full(IntArrayRef size, Scalar value, std::optional<TensorOptions> options) {
  return filled(size, value, options, "full");
}
Tensor zeros(IntArrayRef size, TensorOptions o) { return filled(size, 0, o, "zeros"); }
Tensor ones(IntArrayRef size, TensorOptions o) { return filled(size, 1, o, "ones"); }
Tensor empty(IntArrayRef size, TensorOptions o) {
  return with_grad(wrap(trace::fresh_output(size, checked_options(o, "empty"), "empty")), o);
}
Tensor eye(std::int64_t n, TensorOptions o) { return eye(n, n, o); }
Tensor eye(std::int64_t n, std::int64_t m, TensorOptions o) {
  return with_grad(make(OpId::Eye, {n, m}, checked_options(o, "eye"), {}, "eye"), o);
}

Tensor arange(Scalar end, std::optional<TensorOptions> o) { return arange(0, end, 1, o); }
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<TensorOptions> o) {
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  if (st == 0) throw ValueError("[arange] step must be nonzero");
  if (!std::isfinite(s) || !std::isfinite(e))
    throw ValueError(detail::cat("[arange] start ", s, " and end ", e, " must be finite"));
  if ((e - s) * st < 0)
    throw ValueError(detail::cat("[arange] the bounds [", s, ", ", e, ") are inconsistent with the sign of step ", st));
  bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  ScalarType dtype = o ? checked_options(*o, "arange") : floating ? kDefaultFloat : ScalarType::Int64;
  double count = std::ceil((e - s) / st);
  if (count > 9.0e18) throw ShapeError(detail::cat("[arange] ", count, " elements are too many"));
  return with_grad(make(OpId::Iota, {static_cast<std::int64_t>(count)}, dtype, {start, step}, "arange"), o);
}

Tensor linspace(Scalar start, Scalar end, std::int64_t steps, TensorOptions o) {
  if (steps < 0) throw ValueError(detail::cat("[linspace] number of steps must be non-negative, got ", steps));
  return with_grad(make(OpId::Linspace, {steps}, checked_options(o, "linspace"), {start, end}, "linspace"), o);
}

Tensor rand(IntArrayRef size, TensorOptions o) { return random(OpId::RandUniform, size, o, "rand"); }
Tensor randn(IntArrayRef size, TensorOptions o) { return random(OpId::RandNormal, size, o, "randn"); }
Tensor randint(std::int64_t high, IntArrayRef size, TensorOptions o) { return randint(0, high, size, o); }
Tensor randint(std::int64_t low, std::int64_t high, IntArrayRef size, TensorOptions o) {
  if (low >= high) throw ValueError(detail::cat("[randint] expects low < high, got [", low, ", ", high, ")"));
  ScalarType dtype = checked_options(o, "randint");
  // floor(u * range) with u in [0, 1) drawn in double: exact for ranges below 2^53.
  Tensor u = rand(size, kFloat64);
  return with_grad(((u * static_cast<double>(high - low)).to(ScalarType::Int64) + low).to(dtype), o);
}

Tensor zeros_like(const Tensor& x) { return zeros(x.sizes(), x.dtype()); }
Tensor ones_like(const Tensor& x) { return ones(x.sizes(), x.dtype()); }
Tensor empty_like(const Tensor& x) { return empty(x.sizes(), x.dtype()); }
Tensor full_like(const Tensor& x, Scalar value) { return full(x.sizes(), value, TensorOptions(x.dtype())); }
Tensor rand_like(const Tensor& x) { return rand(x.sizes(), x.dtype()); }
Tensor randn_like(const Tensor& x) { return randn(x.sizes(), x.dtype()); }

}  // namespace kiln
