// kiln::compile(fn): trace a function once and replay it compiled, like
// torch.compile (or rather torch.jit.trace).
//
// The first call with a given input signature runs `fn`, records its ops
// as one segment, compiles every fused kernel of it before returning (that
// call takes the compile time) and keeps the segment as a program. Later
// calls with the same signature do not run `fn`'s C++ body at all: they
// bind the new arguments to the program and run it, compiled from the
// first op, with no per-op recording cost.
//
// The signature is: for each kiln::Tensor argument its dtype, sizes,
// strides, storage offset and which arguments share memory; for each
// arithmetic argument its value. Tracing semantics apply, as with
// torch.jit.trace: the body must be a pure function of its arguments.
// Numbers it computes from anything else are frozen at the traced call.
// Training steps: a body that calls backward() is replayed too. The
// gradients its backward makes in its arguments' .grad() are written into
// the call's arguments' .grad(); this needs them undefined when the call
// begins (reset them with `p.mutable_grad() = {}`, as zero_grad with
// set_to_none does), since a replay cannot add to a gradient that is not
// an argument. A replayed call's results carry no graph (the body already
// ran backward through it).
// State: a body may capture a model and an optimizer, e.g.
//   auto step = kiln::compile([&](const Tensor& x, const Tensor& y) {
//     optimizer.zero_grad();
//     Tensor loss = F::cross_entropy(model->forward(x), y);
//     loss.backward();
//     optimizer.step();
//     return loss;
//   });
// Tensors it finds outside its arguments and updates in place (parameters,
// batch-norm statistics, momentum buffers) are the program's state: a
// replay reads and updates those same tensors, and sets the .grad its
// backward made on leaves outside the arguments (after zero_grad, as the
// body's backward did). Such a program is kept only when two traced calls
// in a row recorded the same ops and numbers, since the numbers the body
// read from outside (a learning rate, Adam's step count in its bias
// correction) are frozen in it: a step whose numbers change every call
// (Adam's) keeps running its body. It is retired when one of its state
// tensors is gone (a new optimizer, a state tensor replaced) or an
// optimizer's options change (a learning-rate schedule), and traced again.
// A call is not replayed, and simply runs `fn` on the implicit path
// (profiled, compiled when hot), when:
//   - a tensor argument is pending, or the body reads a tensor that is
//     neither an argument nor state (e.g. a batch or frozen weights
//     captured by the lambda: pass them as arguments), draws random numbers, reads a value (item(), printing,
//     data_ptr()) or otherwise cuts the trace inside the body, or keeps a
//     tensor it made somewhere other than its result;
//   - an argument or the result is of another type than kiln::Tensor,
//     arithmetic values, or (for the result) a std::tuple, std::pair or
//     std::vector of tensors, or void;
//   - an argument's gradient is defined and the body's backward adds to
//     it, or the body returns tensors with a graph that it did not run
//     backward through (the caller will: a replay has no graph);
//   - more than kMaxPrograms signatures have been traced.
// Pending ops of the calling thread run before a call that runs the body;
// a replayed call first runs the pending ops (of any thread) that touch its
// arguments. With the JIT off (KILN_JIT=0) nothing is traced: every call
// runs its body.
#pragma once

#include <array>
#include <cstddef>
#include <exception>
#include <cstdint>
#include <memory>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/frontend/tensor.h>

namespace kiln {
namespace detail {

/// Programs with state (see above) froze numbers their body read from
/// outside its arguments. Code that owns such numbers calls this when they
/// change (an optimizer's options do), and those programs are traced again.
void invalidate_stateful_programs() noexcept;
std::uint64_t stateful_programs_epoch() noexcept;

/// A non-tensor argument of a compiled call: part of its signature.
struct ArgValue {
  bool integral = false;
  std::int64_t i = 0;
  double d = 0;
  bool operator==(const ArgValue&) const = default;
};

/// The arguments of one call, flattened (on the caller's stack: a replayed
/// call allocates nothing for them).
struct CallArgs {
  std::span<const Tensor* const> tensors;
  std::span<const ArgValue> values;
};

template <class T>
inline constexpr bool is_tensor_arg_v = std::is_same_v<std::remove_cvref_t<T>, Tensor>;
template <class T>
inline constexpr bool is_value_arg_v = std::is_arithmetic_v<std::remove_cvref_t<T>>;

template <class R>
struct ResultShape : std::false_type {};
template <>
struct ResultShape<void> : std::true_type {};
template <>
struct ResultShape<Tensor> : std::true_type {};
template <class... T>
struct ResultShape<std::tuple<T...>> : std::bool_constant<(std::is_same_v<T, Tensor> && ...)> {};
template <>
struct ResultShape<std::pair<Tensor, Tensor>> : std::true_type {};
template <>
struct ResultShape<std::vector<Tensor>> : std::true_type {};

/// The result's tensors, in order.
template <class R>
std::vector<Tensor> flatten_result(const R& r) {
  if constexpr (std::is_same_v<R, Tensor>) {
    return {r};
  } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
    return r;
  } else {
    return std::apply([](const auto&... t) { return std::vector<Tensor>{t...}; }, r);
  }
}

/// The result rebuilt from its tensors (as many as flatten_result gave).
template <class R>
R unflatten_result(std::vector<Tensor>&& t) {
  if constexpr (std::is_same_v<R, Tensor>) {
    return std::move(t[0]);
  } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
    return std::move(t);
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return R{std::move(t[I])...};
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  }
}

/// The programs of one compiled function, one per traced signature. Shared
/// by copies of the function and safe to use from several threads.
class ProgramCache {
 public:
  ProgramCache();
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  /// Runs the program traced for this signature, if there is one and the
  /// arguments allow it; the results go to `results`. False: trace instead.
  bool replay(const CallArgs& args, std::vector<Tensor>& results);
  /// Starts tracing a call: runs the pending ops and notes where the
  /// thread's trace stands. False when nothing more will be traced.
  bool begin_trace();
  /// Ends a traced call whose body returned `results`: runs its segment,
  /// compiling its kernels first, and keeps it as a program if it can be
  /// replayed.
  void end_trace(const CallArgs& args, const std::vector<Tensor>& results);
  /// Runs the calling thread's pending ops: an untraced call's body is cut
  /// into segments of its own, so that its keys recur from call to call.
  static void cut();
  /// Cuts when the untraced call returns (not when it throws: its ops then
  /// run when read, as always).
  class CutAfter {
   public:
    CutAfter();
    ~CutAfter() noexcept(false);
    CutAfter(const CutAfter&) = delete;
    CutAfter& operator=(const CutAfter&) = delete;

   private:
    int uncaught_;
  };

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Appends `a` to the tensors (`*t++`) or the values (`*v++`) of a call.
template <class A>
void add_arg(const Tensor**& t, ArgValue*& v, const A& a) {
  if constexpr (is_tensor_arg_v<A>) {
    *t++ = &a;
  } else if constexpr (std::is_integral_v<A>) {
    *v++ = {true, static_cast<std::int64_t>(a), 0};
  } else {
    *v++ = {false, 0, static_cast<double>(a)};
  }
}

}  // namespace detail

/// Upper bound on the signatures traced per compiled function; calls with
/// further signatures run on the implicit path.
inline constexpr std::size_t kMaxPrograms = 8;

template <class F>
class CompiledFunction {
 public:
  explicit CompiledFunction(F fn) : fn_(std::move(fn)), programs_(std::make_shared<detail::ProgramCache>()) {}

  template <class... A>
  decltype(auto) operator()(A&&... args) {
    using R = std::invoke_result_t<F&, A&&...>;
    if constexpr (detail::ResultShape<R>::value &&
                  ((detail::is_tensor_arg_v<A> || detail::is_value_arg_v<A>) && ...)) {
      constexpr std::size_t kTensors = (std::size_t{detail::is_tensor_arg_v<A>} + ... + 0);
      std::array<const Tensor*, kTensors> tensors{};
      std::array<detail::ArgValue, sizeof...(A) - kTensors> values{};
      const Tensor** t = tensors.data();
      detail::ArgValue* v = values.data();
      (detail::add_arg(t, v, args), ...);
      const detail::CallArgs call{tensors, values};
      std::vector<Tensor> results;
      if (programs_->replay(call, results)) {
        if constexpr (!std::is_void_v<R>) return detail::unflatten_result<R>(std::move(results));
        else return;
      }
      if (!programs_->begin_trace()) return untraced(std::forward<A>(args)...);
      if constexpr (std::is_void_v<R>) {
        fn_(std::forward<A>(args)...);
        programs_->end_trace(call, {});
      } else {
        R r = fn_(std::forward<A>(args)...);
        programs_->end_trace(call, detail::flatten_result(r));
        return r;
      }
    } else {
      return untraced(std::forward<A>(args)...);
    }
  }

 private:
  template <class... A>
  decltype(auto) untraced(A&&... args) {
    detail::ProgramCache::cut();
    detail::ProgramCache::CutAfter after;
    return fn_(std::forward<A>(args)...);
  }

  F fn_;
  std::shared_ptr<detail::ProgramCache> programs_;
};

/// Wraps `fn` (any callable taking kiln::Tensors and numbers and returning
/// tensors) as described at the top of this header.
template <class F>
CompiledFunction<F> compile(F fn) {
  return CompiledFunction<F>(std::move(fn));
}

}  // namespace kiln
