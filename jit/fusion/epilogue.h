// Matmul epilogues: a float matmul whose product feeds a fused elementwise
// group right after it (bias, scaling, activation, casts) becomes one unit.
// The GEMM finishes a block of the product and, while it is in cache, the
// group's compiled kernel (an ordinary KernelSpec over the [..., M, N]
// product shape, or a row-major reshape of it such as a convolution's
// [N, O, H, W]) reads it back and stores the final values. The raw product
// gets its own memory only when something else reads it; otherwise it lives
// in the group's output that has its layout (the kernel then runs in place)
// or, failing that, in a scratch buffer.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/fusion/partition.h"
#include "trace/segment.h"

namespace kiln::jit {

struct MatmulHead {
  std::uint32_t node = 0;          // the MatMul node (the group's first node)
  std::int32_t product_input = 0;  // the spec input that reads the product
  bool store_product = false;      // the product is live or read after the group
  // When the product is not stored: a spec output of the product's dtype and
  // strides, whose memory holds each raw block until the kernel overwrites
  // it in place; -1 when none fits (a scratch buffer holds the product).
  std::int32_t product_output = -1;
};

/// Makes each float32/float64 MatMul node that is the needed node right
/// before a group, and whose product that group reads once in the order it
/// was written (the same view, or a row-major reshape of a row-major
/// product), that group's head. Up to a few needed nodes may sit between
/// when none depends on the matmul or touches what it reads or writes
/// (batch norm's per-channel factors after a convolution, in eval mode):
/// they become the group's `run_first`.
void fuse_matmul_epilogues(const trace::Segment& segment, const std::vector<bool>& needed,
                           std::vector<FusedGroup>& groups);

}  // namespace kiln::jit
