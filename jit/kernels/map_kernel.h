// Elementwise ops as functors: `Op::apply(x, ...)` on one element, made
// into a kernel by map_kernel. Included only by the kernel files of the
// elementwise families.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/elementwise.h"
#include "jit/kernels/libmvec.h"

namespace kiln::jit::kernels {

// An op calling a libm function may also have `Op::apply_array(out, n,
// in...)`, the whole run at once through libmvec (libmvec.h), taken while
// vector_math_enabled(). Strided and broadcast operands reach it too:
// run_elementwise stages them through contiguous buffers.
template <class Op, class Out, class... In>
void map_contiguous(Out* out, std::int64_t n, const In*... in) {
  if constexpr (requires { Op::apply_array(out, n, in...); })
    if (vector_math_enabled()) return Op::apply_array(out, n, in...);
  for (std::int64_t i = 0; i < n; ++i) out[i] = Op::apply(in[i]...);
}

/// The ContiguousLoop of `Op` with output type Out and input types In...
template <class Op, class Out, class... In>
void map_loop(const void*, char* out, const char* const* in, std::int64_t, std::int64_t n) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    map_contiguous<Op>(reinterpret_cast<Out*>(out), n, reinterpret_cast<const In*>(in[K])...);
  }(std::index_sequence_for<In...>{});
}

template <class T, std::size_t>
using Repeat = T;

/// The kernel of an elementwise op whose `Arity` inputs all have the node's
/// compute dtype (one of `Types`); the output type is what Op::apply returns.
template <class Op, DtypeSet Types, std::size_t Arity>
void map_kernel(const KernelCall& call) {
  visit_dtype<Types>(call.node->dtype, trace::name(call.node->op), [&]<class T>() {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      using Out = decltype(Op::apply(Repeat<T, K>{}...));
      run_elementwise(call.out, std::span(call.in, Arity), &map_loop<Op, Out, Repeat<T, K>...>);
    }(std::make_index_sequence<Arity>{});
  });
}

}  // namespace kiln::jit::kernels
