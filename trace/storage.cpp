#include "trace/storage.h"

namespace kiln::trace {

Storage::Storage(void* data, std::size_t nbytes, std::function<void(void*)> deleter)
    : nbytes_(nbytes), data_(data), deleter_(std::move(deleter)), borrowed_(true) {}

Storage::~Storage() {
  if (borrowed_) {
    if (deleter_) deleter_(data_);
  } else {
    release_memory();
  }
}

void Storage::allocate() { 
  block_ = memory::allocate(nbytes_);
  data_ = block_.ptr;
}

void Storage::release_memory() noexcept {
  if (borrowed_ || !block_.ptr) return;
  memory::release(block_);
  block_ = {};
  data_ = nullptr;
}

}  // namespace kiln::trace
