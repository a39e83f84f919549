// B packed once and kept: the packed GEMM (gemm_float.cpp) copies B into
// depth-major panels on every call, 6-20% of a linear layer's time at 32-128
// rows (perf, relu(linear(x, w, b)) with 512 x 512 weights). A weight that
// does not change between calls (inference) can stay packed, as oneDNN and
// FBGEMM prepack linear layers' weights.
//
// The cache is keyed by what B's bytes hold (ContentTag: storage serial and
// writes begun, offset) and by the packed layout (strides, extents, blocks,
// register tile). A B is packed into the cache the second time its key is
// seen, never the first: a weight that changes every step (training) would
// fill the cache with panels nobody reads again. Entries go least recently
// used first past KILN_PREPACK_MAX_BYTES, and with their storage when it
// dies (an unloaded model's weights); none are kept under a memory budget,
// where what the cache held could not be evicted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "jit/kernels/content_tag.h"
#include "jit/workspace.h"

namespace kiln::jit::kernels {

/// One packed B: its content and the layout of its panels.
struct PackedBKey {
  ContentTag content;
  std::int64_t row_stride, col_stride;  // of B, in elements
  std::int64_t k, n;
  std::int64_t kc, nc;  // the depth and column blocks
  int nr;               // columns of a micro-panel
  int element_bytes;

  friend bool operator==(const PackedBKey&, const PackedBKey&) = default;
};

/// For a known `key.content`: the panels of `key` if the cache holds them;
/// else, the second time `key` is asked for (and while no memory budget is
/// set), `bytes` of new panels filled through fill(panels) and kept; else
/// null, and the caller packs B itself. `fill` receives 64-byte aligned
/// memory.
std::shared_ptr<const Workspace> prepacked_b(const PackedBKey& key, std::size_t bytes,
                                             const std::function<void(void* panels)>& fill);

/// Drops what the cache holds for a storage that died (its serial):
/// registered as trace::Storage's death hook, since no later product can
/// read that storage's bytes again.
void forget_prepacked(std::uint64_t storage);

/// Bytes the cache may keep (KILN_PREPACK_MAX_BYTES; 0 turns it off).
void set_prepack_limit(std::uint64_t bytes);
std::uint64_t prepack_limit();

/// What the cache holds now (for tests and stats).
struct PrepackStats {
  std::uint64_t hits = 0, packed = 0, bytes = 0;
};
PrepackStats prepack_stats();

}  // namespace kiln::jit::kernels
