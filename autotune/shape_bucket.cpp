// bucket() and bucket_key(): see shape_bucket.h.
#include "autotune/shape_bucket.h"

#include <bit>
#include <limits>

namespace kiln::autotune {

std::int64_t bucket(std::int64_t extent) {
  if (extent <= 16) return extent;
  const auto e = static_cast<std::uint64_t>(extent);
  const std::uint64_t top = std::bit_floor(e);
  if (e == top) return extent;
  const std::uint64_t up = e <= top + top / 2 ? top + top / 2 : 2 * top;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(up > kMax ? kMax : up);
}

std::string bucket_key(std::span<const std::int64_t> extents) {
  std::string key;
  for (std::int64_t extent : extents) {
    if (!key.empty()) key += 'x';
    key += std::to_string(bucket(extent));
  }
  return key;
}

}  // namespace kiln::autotune
