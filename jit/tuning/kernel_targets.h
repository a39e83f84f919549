// The fused kernels `kiln tune` names besides the GEMMs (kiln/tune.h), each
// written as the KernelSpec the partitioner makes of its eager ops, so that
// the entry tuned for it (kernel_tuning.h) is the one a program's kernel
// looks up: "sum N" (x.sum() over N float32), "softmax RxC" (x.softmax(1)
// over R rows of C float32) and "exp N" (x.exp(): an elementwise kernel).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jit/fusion/kernel_spec.h"

namespace kiln::jit::tuning {

struct FusedKernelName {
  const char* name;
  int extents;              // how many the shape has
  const char* extent_text;  // what they are, for error messages
};
inline constexpr FusedKernelName kFusedKernelNames[] = {
    {"sum", 1, "elements"}, {"softmax", 2, "rows x columns"}, {"exp", 1, "elements"}};

/// The name's entry in kFusedKernelNames, or null.
const FusedKernelName* fused_kernel_name(std::string_view name);

/// The kernel of a target; `shape` has the name's number of extents, each >= 1.
KernelSpec fused_kernel_spec(std::string_view name, std::span<const std::int64_t> shape);

/// A target: a name of kFusedKernelNames and its extents.
struct FusedKernelTarget {
  const char* name;
  std::vector<std::int64_t> shape;
};

/// The target a program's kernel is tuned as: "sum N", "softmax RxC" or
/// "exp N" when that target's kernel has the same database key (every
/// elementwise kernel of a size shares the key of "exp" at that size).
std::optional<FusedKernelTarget> fused_target_of(const KernelSpec& spec);

/// fused_target_of(spec) as `kiln tune` writes it ("softmax 4096x1024"), or "".
std::string fused_kernel_target(const KernelSpec& spec);

/// Bytes one run of the kernel reads and writes, each operand once (the
/// outputs of reductions, a value per row, left out): for GB/s.
double bytes_moved(const KernelSpec& spec);

}  // namespace kiln::jit::tuning
