// What an operand's bytes hold, as the engine knows it, for kernels that
// keep what they derive from an operand between calls (the GEMM's packed
// weights, gemm_prepacked.h).
#pragma once

#include <cstdint>

namespace kiln::jit::kernels {

/// Two calls with equal known tags read equal bytes: the same storage
/// (trace::Storage::serial), with no write begun into it between them
/// (Storage::writes), at the same element offset. Unknown (storage 0) for
/// memory that may change behind kiln's back, or that the running segment
/// itself writes.
struct ContentTag {
  std::uint64_t storage = 0;
  std::uint64_t writes = 0;
  std::int64_t offset = 0;  // elements from the storage's start

  bool known() const { return storage != 0; }
  friend bool operator==(const ContentTag&, const ContentTag&) = default;
};

}  // namespace kiln::jit::kernels
