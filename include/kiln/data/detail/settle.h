// Running a batch's pending ops on the worker that built it. A tensor may
// be handed to another thread while pending (its ops would then run on the
// consumer at first use); settling on the worker makes the batch's work
// happen in the background, which is the point of workers.
#pragma once

#include <type_traits>
#include <vector>

#include <kiln/data/example.h>
#include <kiln/frontend/tensor.h>

namespace kiln::data::detail {

/// Runs what `t` still waits for (nothing for an undefined tensor).
void settle(const Tensor& t);

template <class T>
void settle(const std::vector<T>& batch);
template <class Data, class Target>
void settle(const Example<Data, Target>& example);

/// Batches of other types (no tensors kiln can see) need nothing.
template <class T>
void settle(const T&) {}

template <class T>
void settle(const std::vector<T>& batch) {
  for (const T& item : batch) settle(item);
}

template <class Data, class Target>
void settle(const Example<Data, Target>& example) {
  settle(example.data);
  if constexpr (!std::is_void_v<Target>) settle(example.target);
}

}  // namespace kiln::data::detail
