// data::Iterator: what `for (auto& batch : *loader)` walks. An input
// iterator: each ++ asks the loader for the next batch (and rethrows the
// error of a batch that failed on a worker), so the loop ends when the
// epoch's sampler is exhausted.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <utility>

#include <kiln/error.h>

namespace kiln::data {

template <class Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  /// The end of every epoch.
  Iterator() = default;
  /// Starts at the batch `next` gives first; `next` returns nothing at the end.
  explicit Iterator(std::function<std::optional<Batch>()> next) : next_(std::move(next)), batch_(next_()) {}

  Batch& operator*() { return current(); }
  Batch* operator->() { return &current(); }
  Iterator& operator++() {
    batch_.reset();
    batch_ = next_();
    return *this;
  }

  /// Iterators are equal when both are at the end (or are one iterator).
  friend bool operator==(const Iterator& a, const Iterator& b) { return &a == &b || (!a.batch_ && !b.batch_); }

 private:
  Batch& current() {
    if (!batch_) throw IndexError("[data::Iterator] dereferencing an iterator past the end of the epoch");
    return *batch_;
  }

  std::function<std::optional<Batch>()> next_;
  std::optional<Batch> batch_;
};

}  // namespace kiln::data
