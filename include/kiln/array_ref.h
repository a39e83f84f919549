// kiln::IntArrayRef: a non-owning view of int64 sizes, dims or strides.
//
// Mirrors LibTorch's c10::IntArrayRef so that calls like `zeros({2, 3})`,
// `x.view(shape_vector)` and `x.sum(1)` read the same. It never owns its
// data: it must not outlive the list or vector it was made from.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace kiln {

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(const std::int64_t& one) : data_(&one), size_(1) {}
  IntArrayRef(const std::int64_t* data, std::size_t size) : data_(data), size_(size) {}
  // Like c10::ArrayRef: valid for the full expression that wrote the list.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  IntArrayRef(std::initializer_list<std::int64_t> list) : data_(list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop
  IntArrayRef(const std::vector<std::int64_t>& v) : data_(v.data()), size_(v.size()) {}
  template <std::size_t N>
  IntArrayRef(const std::array<std::int64_t, N>& a) : data_(a.data()), size_(N) {}

  const std::int64_t* begin() const { return data_; }
  const std::int64_t* end() const { return data_ + size_; }
  const std::int64_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::int64_t operator[](std::size_t i) const { return data_[i]; }
  std::int64_t front() const { return data_[0]; }
  std::int64_t back() const { return data_[size_ - 1]; }
  std::vector<std::int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(IntArrayRef a, IntArrayRef b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }

 private:
  const std::int64_t* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Prints as LibTorch does: "[2, 3]".
inline std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << '[';
  for (std::size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

}  // namespace kiln
