// The peer of a tuned GEMM, where one is installed: OpenBLAS's cblas_sgemm
// on the same shape and layout, loaded at run time (dlopen) so that kiln
// needs no BLAS to build or run; `kiln tune` shows it beside the tuned time.
#pragma once

#include <optional>
#include <string>

#include <kiln/tune.h>

namespace kiln::tools {

/// Median time in ms of OpenBLAS's sgemm for `target` on `threads` threads,
/// or nothing when libopenblas.so.0 is not installed or the target is not a GEMM.
std::optional<double> openblas_ms(const kiln::tune::Target& target, int threads);

/// The kernels OpenBLAS runs ("SkylakeX", "Haswell"; OPENBLAS_CORETYPE
/// forces one), empty when it is not installed. On a CPU model newer than
/// the library it is "Prescott", its generic SSE3 fallback: OpenBLAS 0.3.21
/// on an Intel Xeon of model 207 (AVX-512) ran sgemm 6x slower than with
/// its Cooperlake kernels, and the OPENBLAS column would say so.
std::string openblas_core();

}  // namespace kiln::tools
