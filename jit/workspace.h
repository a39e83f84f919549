// Scratch memory from kiln's pool (64-byte aligned, counted against the
// memory budget), returned when the Workspace dies, also on exceptions.
#pragma once

#include <cstddef>
#include <utility>

#include <kiln/memory/memory.h>

namespace kiln::jit {

class Workspace {
 public:
  Workspace() = default;
  explicit Workspace(std::size_t bytes) : block_(memory::allocate(bytes)) {}
  ~Workspace() { memory::release(block_); }
  Workspace(Workspace&& other) noexcept : block_(std::exchange(other.block_, {})) {}
  Workspace& operator=(Workspace&& other) noexcept {
    std::swap(block_, other.block_);
    return *this;
  }

  template <class T>
  T* as() const { return static_cast<T*>(block_.ptr); }

 private:
  memory::Block block_;
};

}  // namespace kiln::jit
