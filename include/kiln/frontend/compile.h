// kiln::compile(fn): compile a whole function ahead of its first real use,
// like torch.compile. The first call traces `fn` on its arguments, compiles
// every fused kernel of it before returning (the call takes the compile
// time), and later calls with the same input signature (dtypes, shapes,
// strides) run compiled code from their first op. A call whose signature
// differs simply takes the implicit path: profiled, compiled when hot.
//
// The function body is one segment: pending ops are run before it starts,
// and its results are computed when it returns.
#pragma once

#include <atomic>
#include <exception>
#include <utility>

namespace kiln {
namespace detail {

/// Cuts the calling thread's trace around a compiled call.
class CompiledCall {
 public:
  explicit CompiledCall(bool compile_now);
  ~CompiledCall() noexcept(false);
  CompiledCall(const CompiledCall&) = delete;
  CompiledCall& operator=(const CompiledCall&) = delete;

 private:
  bool compile_now_;
  int uncaught_;
};

}  // namespace detail

template <class F>
class CompiledFunction {
 public:
  explicit CompiledFunction(F fn) : fn_(std::move(fn)) {}
  CompiledFunction(const CompiledFunction& o) : fn_(o.fn_) {}

  template <class... A>
  decltype(auto) operator()(A&&... args) {
    detail::CompiledCall call(first_.exchange(false));
    return fn_(std::forward<A>(args)...);
  }

 private:
  F fn_;
  std::atomic<bool> first_{true};
};

/// Wraps `fn` (any callable taking and returning kiln::Tensors).
template <class F>
CompiledFunction<F> compile(F fn) {
  return CompiledFunction<F>(std::move(fn));
}

}  // namespace kiln
