// operator<<: values then a type/shape footer, in LibTorch's layout.
#include <iomanip>
#include <ostream>

#include <kiln/frontend/tensor.h>

#include "frontend/handle.h"
#include "trace/strided_read.h"
#include "profiler/call_site.h"

namespace kiln {
namespace {

const char* type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "CPUBoolType";
    case ScalarType::Int32: return "CPUIntType";
    case ScalarType::Int64: return "CPULongType";
    case ScalarType::Float32: return "CPUFloatType";
    case ScalarType::Float64: return "CPUDoubleType";
  }
  return "?";
}

void print_row(std::ostream& os, const std::vector<double>& v, std::int64_t start, std::int64_t count, bool integral) {
  for (std::int64_t i = 0; i < count; ++i) {
    os << ' ' << std::setw(10);
    if (integral) os << static_cast<long long>(v[start + i]);
    else os << std::setprecision(4) << v[start + i];
  }
  os << '\n';
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  profiler::CallerScope caller(__builtin_return_address(0));
  const auto& x = *t.impl();
  trace::materialize(x, profiler::CutReason::Print, false);
  std::vector<double> v = trace::read_elements<double>(x);
  bool integral = !is_floating_point(x.dtype);
  const auto& g = x.geo;
  if (g.ndim == 0) {
    print_row(os, v, 0, 1, integral);
  } else if (g.ndim == 1) {
    for (std::int64_t i = 0; i < g.sizes[0]; ++i) print_row(os, v, i, 1, integral);
  } else {
    std::int64_t cols = g.sizes[g.ndim - 1], rows = g.sizes[g.ndim - 2];
    std::int64_t mats = cols * rows == 0 ? 0 : g.numel() / (cols * rows);
    for (std::int64_t m = 0; m < mats; ++m) {
      if (g.ndim > 2) {
        os << '(';
        std::int64_t rest = m;
        std::int64_t idx[trace::kMaxDims];
        for (int d = g.ndim - 3; d >= 0; --d) {
          idx[d] = rest % g.sizes[d];
          rest /= g.sizes[d];
        }
        for (int d = 0; d < g.ndim - 2; ++d) os << idx[d] << ',';
        os << ".,.) = \n";
      }
      for (std::int64_t r = 0; r < rows; ++r) print_row(os, v, (m * rows + r) * cols, cols, integral);
      if (g.ndim > 2 && m + 1 < mats) os << '\n';
    }
  }
  os << "[ " << type_name(x.dtype) << "{";
  for (int d = 0; d < g.ndim; ++d) os << (d ? "," : "") << g.sizes[d];
  return os << "} ]";
}

}  // namespace kiln
