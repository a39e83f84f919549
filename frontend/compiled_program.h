// CompiledProgram: one traced call of a kiln::compile'd function, kept as
// its segment, so that later calls with the same signature bind their
// arguments to it and run it without running the function's body (see
// kiln/frontend/compile.h for the rules a call must meet).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <kiln/frontend/compile.h>

#include "frontend/autograd/meta.h"
#include "trace/segment.h"
#include "trace/tensor_impl.h"

namespace kiln::frontend {

class CompiledProgram {
 public:
  /// The program of a call whose body was exactly `segment` and returned
  /// `results`, its backward having set the .grad of `leaves` (those not
  /// among the arguments may be its state's); null when that call cannot be
  /// replayed.
  static std::unique_ptr<CompiledProgram> capture(const trace::Segment& segment, const detail::CallArgs& args,
                                                  const std::vector<Tensor>& results,
                                                  const std::vector<std::weak_ptr<autograd::AutogradMeta>>& leaves);

  ~CompiledProgram();
  CompiledProgram(const CompiledProgram&) = delete;
  CompiledProgram& operator=(const CompiledProgram&) = delete;

  /// True when `args` has this program's signature and its state is still
  /// there (see kiln/frontend/compile.h).
  bool matches(const detail::CallArgs& args) const;
  /// Runs the program on `args` (which match) into `results`; false (and
  /// nothing run) when its state went away since matches().
  bool run(const detail::CallArgs& args, std::vector<Tensor>& results);
  /// Whether the body updated tensors outside its arguments in place.
  bool has_state() const noexcept { return !state_.empty(); }
  /// Whether `other` records the same ops, numbers and state as this one
  /// (two traced calls of a body with state must agree before it replays).
  bool same_as(const CompiledProgram& other) const;

 private:
  struct ArgSignature {
    ScalarType dtype;
    trace::Geometry geo;
    std::int32_t same_storage_as;  // the first argument with this storage (itself if none before)
    bool written;                  // the program writes it (in-place ops on an argument)
    bool requires_grad;
    bool grad_out;                 // the program makes its .grad (the call must find it undefined)
    bool operator==(const ArgSignature&) const = default;
  };
  // Where a value's storage comes from in a replay: an argument, the state,
  // or a fresh storage of `nbytes` (made by the segment; an intermediate if
  // no handle held it when the segment was cut).
  struct ValueSource {
    std::int32_t arg = -1;
    std::int32_t state = -1;  // index into state_
    std::size_t nbytes = 0;
    bool intermediate = false;
    bool operator==(const ValueSource&) const = default;
  };
  // A result: a view of a value's storage, or of an argument's.
  struct ResultView {
    std::int32_t value = -1;
    std::int32_t arg = -1;
    trace::Geometry geo;
    ScalarType dtype;
    bool operator==(const ResultView&) const = default;
  };
  // A leaf outside the arguments whose .grad the body's backward made.
  struct StateGrad {
    std::weak_ptr<autograd::AutogradMeta> leaf;
    ResultView view;
  };

  CompiledProgram() = default;
  std::unique_ptr<trace::Segment> take_segment();
  void give_back(std::unique_ptr<trace::Segment> segment);

  std::vector<ArgSignature> args_;
  std::vector<detail::ArgValue> values_;
  trace::Segment template_;  // storages left empty
  std::vector<ValueSource> sources_;
  std::vector<ResultView> results_;
  // The gradients the body's backward() left in arguments' .grad: argument
  // index and the value's view, written into the call's arguments.
  std::vector<std::pair<std::int32_t, ResultView>> grads_;
  // The state: storages the body found outside its arguments and wrote in
  // place, held weakly (a program never keeps a model alive; a state tensor
  // that is gone retires the program).
  std::vector<std::weak_ptr<trace::Storage>> state_;
  std::vector<StateGrad> state_grads_;
  std::uint64_t epoch_ = 0;  // detail::stateful_programs_epoch() when traced
  std::atomic<trace::Segment*> spare_one_{nullptr};      // a copy of template_, owned
  std::mutex mu_;
  std::vector<std::unique_ptr<trace::Segment>> spare_;  // more copies, for concurrent calls
};

}  // namespace kiln::frontend
