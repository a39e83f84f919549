// Size classes: which pooled capacity serves a request.
//
// Up to 4 KiB, classes are 64-byte multiples (64 classes); above, each power
// of two (2^p, 2^(p+1)] is split into four equal steps, as in jemalloc, so a
// block is never more than 25% larger than asked for. Everything is pooled by
// class, so the classes stop at a bound no machine reaches.
#pragma once

#include <bit>
#include <cstddef>

namespace kiln::memory {

inline constexpr std::size_t kAlignment = 64;
inline constexpr std::size_t kSmallLimit = 4096;
inline constexpr std::size_t kSmallClasses = kSmallLimit / kAlignment;
inline constexpr int kLargestPower = 48;  // 256 TiB
inline constexpr std::size_t kMaxClassBytes = std::size_t{1} << kLargestPower;
inline constexpr std::size_t kNumClasses = kSmallClasses + 4 * (kLargestPower - 12);

/// The class serving `bytes` (requires bytes <= kMaxClassBytes).
constexpr std::size_t class_index(std::size_t bytes) noexcept {
  if (bytes <= kSmallLimit) return bytes == 0 ? 0 : (bytes - 1) / kAlignment;
  const std::size_t n = bytes - 1;
  const int p = std::bit_width(n) - 1;  // 2^p <= n < 2^(p+1), p >= 12
  const std::size_t step = (n - (std::size_t{1} << p)) >> (p - 2);
  return kSmallClasses + 4 * static_cast<std::size_t>(p - 12) + step;
}

/// The capacity of class `index` (requires index < kNumClasses).
constexpr std::size_t class_bytes(std::size_t index) noexcept {
  if (index < kSmallClasses) return (index + 1) * kAlignment;
  const std::size_t large = index - kSmallClasses;
  const std::size_t p = 12 + large / 4;
  return (std::size_t{1} << p) + ((large % 4 + 1) << (p - 2));
}

static_assert(class_index(0) == 0 && class_bytes(0) == 64);
static_assert(class_bytes(class_index(4096)) == 4096);
static_assert(class_bytes(class_index(4097)) == 5 * 1024);
static_assert(class_bytes(class_index(8192)) == 8192);
static_assert(class_bytes(class_index(8193)) == 10 * 1024);
static_assert(class_index(kMaxClassBytes) == kNumClasses - 1);
static_assert(class_bytes(kNumClasses - 1) == kMaxClassBytes);

}  // namespace kiln::memory
