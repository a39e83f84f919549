// SavedVariable: a tensor a node keeps for its backward formula. It holds
// the handle (a pending value stays pending; nothing is copied) and the
// storage's version when saved, so an in-place write made afterwards is an
// error at backward instead of a silently wrong gradient.
#pragma once

#include <memory>

#include <kiln/autograd.h>

#include "trace/tensor_impl.h"

namespace kiln::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  /// Saves `t`. An output of `owner` is kept without its history (a node
  /// holding its own output would be a reference cycle) and gets it back
  /// from the node when unpacked.
  SavedVariable(const Tensor& t, bool is_output);
  SavedVariable(const trace::TensorImpl& t, bool is_output);

  bool defined() const { return data_ != nullptr || released_; }
  /// The saved tensor, with history when `owner` is the node that made it.
  /// AutogradError when it was released or modified in place.
  Tensor unpack(const std::shared_ptr<Node>& owner, const char* node_name) const;
  /// For an operand of an in-place op that aliases the written tensor:
  /// it was read at the version before the write, which is recorded after.
  void saved_before_write() { --version_; }
  void release() {
    if (data_) released_ = true;
    data_.reset();
    grad_fn_.reset();
  }

 private:
  void save(const trace::TensorImpl& t, bool is_output);

  trace::TensorRef data_;
  std::shared_ptr<Node> grad_fn_;  // a non-leaf input's history when saved
  std::uint32_t version_ = 0;
  std::uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool released_ = false;
};

}  // namespace kiln::autograd
