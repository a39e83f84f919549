// The peer of a tuned GEMM, where one is installed: OpenBLAS's cblas_sgemm
// on the same shape and layout, loaded at run time (dlopen) so that kiln
// needs no BLAS to build or run; `kiln tune` shows it beside the tuned time.
#pragma once

#include <optional>

#include <kiln/tune.h>

namespace kiln::tools {

/// Median time in ms of OpenBLAS's sgemm for `target` on `threads` threads,
/// or nothing when libopenblas.so.0 is not installed or the target is not a GEMM.
std::optional<double> openblas_ms(const kiln::tune::Target& target, int threads);

}  // namespace kiln::tools
