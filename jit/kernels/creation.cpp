// Creation kernels without randomness: fill, arange, linspace, eye. Their
// parameters are scalar operands (run-time values, not part of the segment
// key); values depend on the row-major position in the output, so any view
// (even a strided one, for in-place fills) gets the same numbers.
#include <algorithm>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/elementwise.h"
#include "jit/kernels/wrapping.h"

namespace kiln::jit::kernels {
namespace {

template <class T>
void fill_loop(const void* params, char* out, const char* const*, std::int64_t, std::int64_t n) {
  const T value = *static_cast<const T*>(params);
  T* o = reinterpret_cast<T*>(out);
  for (std::int64_t i = 0; i < n; ++i) o[i] = value;
}

// start + i * step: in double for float outputs, in wrapping int64 otherwise.
template <class T>
struct IotaParams {
  using Compute = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
  Compute start, step;
};
template <class T>
void iota_loop(const void* params, char* out, const char* const*, std::int64_t first, std::int64_t n) {
  const auto& p = *static_cast<const IotaParams<T>*>(params);
  T* o = reinterpret_cast<T*>(out);
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>)
      o[i] = static_cast<T>(p.start + static_cast<double>(first + i) * p.step);
    else
      o[i] = static_cast<T>(wrapping_add(p.start, wrapping_mul(first + i, p.step)));
  }
}

// LibTorch's symmetric linspace: the first half steps up from start, the
// second half steps down from end, so both ends are exact. A single
// element is `start` (halfway = 1).
struct LinspaceParams {
  double start, end, step;
  std::int64_t n, halfway;
};
template <class T>
void linspace_loop(const void* params, char* out, const char* const*, std::int64_t first, std::int64_t n) {
  const auto& p = *static_cast<const LinspaceParams*>(params);
  T* o = reinterpret_cast<T*>(out);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = first + i;
    const double v = k < p.halfway ? p.start + static_cast<double>(k) * p.step
                                 : p.end - static_cast<double>(p.n - 1 - k) * p.step;
    o[i] = static_cast<T>(v);
  }
}

template <class T>
void eye_loop(const void* params, char* out, const char* const*, std::int64_t first, std::int64_t n) {
  const std::int64_t cols = *static_cast<const std::int64_t*>(params);
  T* o = reinterpret_cast<T*>(out);
  for (std::int64_t i = 0; i < n; ++i) o[i] = convert<T>((first + i) / cols == (first + i) % cols);
}

}  // namespace

void Fill(const KernelCall& c) {
  visit_dtype<kAllTypes>(c.out.dtype, "fill", [&]<class T>() {
    const T value = c.node->in[0].scalar.to<T>();
    run_elementwise(c.out, {}, &fill_loop<T>, &value);
  });
}

void Iota(const KernelCall& c) {
  visit_dtype<kNumericTypes>(c.out.dtype, "arange", [&]<class T>() {
    using Compute = typename IotaParams<T>::Compute;
    const IotaParams<T> params{c.node->in[0].scalar.to<Compute>(), c.node->in[1].scalar.to<Compute>()};
    run_elementwise(c.out, {}, &iota_loop<T>, &params);
  });
}

void Linspace(const KernelCall& c) {
  const std::int64_t n = c.out.numel();
  const double start = c.node->in[0].scalar.to_double(), end = c.node->in[1].scalar.to_double();
  const LinspaceParams params{start, end, n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0, n,
                              std::max<std::int64_t>(n / 2, 1)};
  visit_dtype<kNumericTypes>(c.out.dtype, "linspace", [&]<class T>() {
    run_elementwise(c.out, {}, &linspace_loop<T>, &params);
  });
}

void Eye(const KernelCall& c) {
  KILN_CHECK(c.out.geo.ndim == 2, "eye output has ", c.out.geo.ndim, " dims");
  const std::int64_t cols = c.out.geo.sizes[1];
  visit_dtype<kAllTypes>(c.out.dtype, "eye", [&]<class T>() {
    run_elementwise(c.out, {}, &eye_loop<T>, &cols);
  });
}

}  // namespace kiln::jit::kernels
