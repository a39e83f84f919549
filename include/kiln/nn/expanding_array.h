// ExpandingArray<D>: LibTorch's way of taking "one number for every spatial
// dim, or one per dim": `Conv2dOptions(1, 8, 3)` and `Conv2dOptions(1, 8,
// {3, 5})` both work.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include <kiln/error.h>

namespace kiln {

template <std::size_t D>
class ExpandingArray {
 public:
  ExpandingArray(std::int64_t single) { values_.fill(single); }
  ExpandingArray(std::initializer_list<std::int64_t> list) {
    if (list.size() != D)
      throw ValueError(detail::cat("[nn] expected ", D, " values (one per spatial dim), got ", list.size()));
    std::size_t i = 0;
    for (std::int64_t v : list) values_[i++] = v;
  }
  ExpandingArray(const std::array<std::int64_t, D>& values) : values_(values) {}

  std::int64_t operator[](std::size_t i) const { return values_[i]; }
  std::vector<std::int64_t> vec() const { return {values_.begin(), values_.end()}; }
  const std::array<std::int64_t, D>& operator*() const { return values_; }
  const std::int64_t* data() const { return values_.data(); }
  static constexpr std::size_t size() { return D; }
  bool operator==(const ExpandingArray& o) const { return values_ == o.values_; }

 private:
  std::array<std::int64_t, D> values_{};
};

/// "[3, 3]", as LibTorch prints module options.
template <std::size_t D>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D>& a) {
  stream << '[';
  for (std::size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << a[i];
  return stream << ']';
}

}  // namespace kiln
