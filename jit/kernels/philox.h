// Philox4x32-10, the counter-based generator behind kiln's random tensors
// (Salmon, Moraes, Dror, Shaw: "Parallel Random Numbers: As Easy as 1, 2,
// 3", SC 2011; the same generator as Random123, cuRAND and JAX).
//
// kiln's documented stream: for a call with seed s and offset o, element i
// (row-major in the output) is made from the block
//   philox({lo32(o + i), hi32(o + i), 0, 0}, key {lo32(s), hi32(s)}) = r0..r3
// and nothing else, so a tensor's values depend only on (seed, offset, i):
// not on the thread split, the tier (interpreted or compiled), or the
// machine. The frontend advances the offset by numel after each call.
//   rand   float32: (r0 >> 8) * 2^-24               (24 bits, in [0, 1))
//          float64: ((r0 << 21) ^ (r1 >> 11)) * 2^-53  (53 bits, in [0, 1))
//   randn  u1 = (r0 + 0.5) 2^-32, u2 = (r1 + 0.5) 2^-32 (both in (0, 1)),
//          z = sqrt(-2 ln u1) cos(2 pi u2) in double (Box-Muller), then cast.
#pragma once

#include <array>
#include <cstdint>

namespace kiln::jit {

using PhiloxBlock = std::array<std::uint32_t, 4>;

constexpr PhiloxBlock philox4x32_10(PhiloxBlock counter, std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;  // key schedule
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kMul0} * counter[0];
    const std::uint64_t p1 = std::uint64_t{kMul1} * counter[2];
    counter = {static_cast<std::uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<std::uint32_t>(p1),
               static_cast<std::uint32_t>(p0 >> 32) ^ counter[3] ^ key[1], static_cast<std::uint32_t>(p0)};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
  return counter;
}

/// The block of element `index` of a random tensor made with (seed, offset).
constexpr PhiloxBlock philox_for_element(std::uint64_t seed, std::uint64_t offset, std::uint64_t index) {
  const std::uint64_t n = offset + index;
  return philox4x32_10({static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n >> 32), 0, 0},
                       {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

}  // namespace kiln::jit
