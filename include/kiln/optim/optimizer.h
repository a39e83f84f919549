// kiln::optim::Optimizer: LibTorch's torch::optim::Optimizer. Parameters in
// groups, each group with its own options (learning rate, ...), per-
// parameter state (momentum buffers, moment estimates) keyed by the
// parameter. step() updates the parameters in place from their .grad(),
// without gradient history: the update is recorded like any op, so it joins
// the backward in the training step's segments and is fused and compiled.
//
// Checkpoints (kiln/serialize.h: torch::save(optimizer, path)) store each
// group's options and each parameter's state, the state keyed by the
// parameter's position across the groups, as LibTorch does. An optimizer
// takes part by giving its classes three short functions:
//   - XOptions::serialize(OutputArchive&) const and serialize(InputArchive&):
//     write and read each option as a named field (archive.write("lr", lr()),
//     archive.read("lr", lr_)); reading overwrites the fields in place;
//   - XParamState::serialize(OutputArchive&) const and serialize(InputArchive&):
//     the same for the state's fields (numbers and tensors; a tensor that may
//     be undefined is written only when defined and read with try_read);
//   - X::make_param_state(): a new, empty state of X's state class, which
//     load() fills through serialize(InputArchive&).
// The defaults throw a ValueError saying the optimizer does not support it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include <kiln/frontend/compile.h>
#include <kiln/frontend/tensor.h>
#include <kiln/nn/options.h>

/// KILN_ARG for an optimizer's options: a change also retires the
/// kiln::compile'd programs that froze the old value (a learning-rate
/// schedule reaches a compiled training step).
#define KILN_OPTIM_ARG(T, name)                                    \
 public:                                                           \
  inline auto& name(const T& new_##name) {                         \
    this->name##_ = new_##name;                                    \
    ::kiln::detail::invalidate_stateful_programs();                \
    return *this;                                                  \
  }                                                                \
  inline const T& name() const noexcept { return this->name##_; } \
                                                                   \
 private:                                                          \
  T name##_

namespace kiln::serialize {
class OutputArchive;
class InputArchive;
}  // namespace kiln::serialize

namespace kiln::optim {

/// The options of one parameter group; each optimizer derives its own.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  /// Writes every option as a named field (LibTorch's OptimizerOptions::serialize).
  virtual void serialize(serialize::OutputArchive& archive) const;
  /// Reads every option back from the fields serialize(OutputArchive&) wrote.
  virtual void serialize(serialize::InputArchive& archive);
};

/// The state an optimizer keeps for one parameter; each derives its own.
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  /// Writes the state's fields (LibTorch's OptimizerParamState::serialize).
  virtual void serialize(serialize::OutputArchive& archive) const;
  /// Reads the fields back into this (new, empty) state.
  virtual void serialize(serialize::InputArchive& archive);
};

class OptimizerParamGroup {
 public:
  /// A group that takes the optimizer's default options.
  explicit OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) {
    options_ = std::move(options);
    kiln::detail::invalidate_stateful_programs();
  }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// One update of every parameter that has a gradient. With a closure, it
  /// is called first (with gradient mode on) and its loss returned.
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  /// Adds a group; a group without options takes the defaults. A parameter
  /// already in a group is a ValueError.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Resets every parameter's gradient: undefined (LibTorch's default), or
  /// zeros in place.
  void zero_grad(bool set_to_none = true);

  /// The parameters of the first group (LibTorch's parameters()).
  const std::vector<Tensor>& parameters() const noexcept;
  /// Parameters in all groups.
  std::size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Writes every group's options and every parameter's state, keyed by the
  /// parameter's position across the groups ("state.3.exp_avg"), as LibTorch's
  /// Optimizer::save. ValueError if the optimizer's classes cannot serialize.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads what save() wrote into an optimizer over the same groups of
  /// parameters: options replace each group's, the state replaces all state.
  /// A different number of groups or of parameters in a group, or state for a
  /// position past the last parameter, is a ValueError naming the file; then
  /// nothing is changed (everything is read before anything is replaced).
  virtual void load(serialize::InputArchive& archive);

  /// Per-parameter state, keyed by the parameter's TensorImpl.
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>>& state() noexcept { return state_; }

 protected:
  /// The state of `p`, made by `make` the first time.
  template <class State>
  State& state_of(const Tensor& p, const std::function<std::unique_ptr<State>()>& make) {
    auto& slot = state_[p.impl().get()];
    if (!slot) slot = make();
    return static_cast<State&>(*slot);
  }
  /// A new, empty state of this optimizer's state class, for load() to fill.
  /// The default throws a ValueError (the optimizer cannot load state).
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const;
  /// Runs the closure (if any) with gradient mode on.
  static Tensor run_closure(const LossClosure& closure);

  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>> state_;
};

}  // namespace kiln::optim
