// operator<<: LibTorch's layout, number for number, so that a ported
// program's output can be compared with LibTorch's by diff. One format per
// printed block (the vector, or each matrix): whole numbers print as
// integers, a range of magnitudes over 4 decades in scientific notation,
// otherwise fixed with 4 decimals, with a common "scale *" line for values
// of 6 or more digits or below 0.1. Matrices wider than 80 characters are cut
// into "Columns a to b" blocks; tensors of more than 2 dims print one matrix
// per leading index, labelled 1-based with the first index varying fastest.
#include <cmath>
#include <iomanip>
#include <ostream>

#include <kiln/frontend/tensor.h>

#include "frontend/handle.h"
#include "profiler/call_site.h"
#include "trace/strided_read.h"

namespace kiln {
namespace {

constexpr std::int64_t kLineWidth = 80;

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

struct Format {
  double scale = 1;
  std::int64_t width = 0;
};

// Digits before the decimal point of |z| (1 for 0).
double digits(double z) { return z != 0 ? std::floor(std::log10(z)) + 1 : 1; }

// Chooses the notation for `v` and sets it on `os`.
Format choose_format(std::ostream& os, const double* v, std::int64_t n) {
  if (n == 0) return {1, 0};
  bool whole = true;
  for (std::int64_t i = 0; i < n && whole; ++i) whole = !std::isfinite(v[i]) || v[i] == std::ceil(v[i]);
  std::int64_t first = 0;
  while (first < n && !std::isfinite(v[first])) ++first;
  double exp_min = 1, exp_max = 1;
  if (first < n) {
    double lo = std::fabs(v[first]), hi = lo;
    for (std::int64_t i = first; i < n; ++i) {
      const double z = std::fabs(v[i]);
      if (!std::isfinite(z)) continue;
      lo = std::min(lo, z);
      // LibTorch compares the signed value here: a negative element never
      // raises the maximum. Kept, so the widths agree with LibTorch's.
      if (v[i] > hi) hi = z;
    }
    exp_min = digits(lo);
    exp_max = digits(hi);
  }
  Format f;
  if (whole) {
    if (exp_max > 9) {
      f.width = 11;
      os << std::scientific << std::setprecision(4);
    } else {
      f.width = static_cast<std::int64_t>(exp_max) + 1;
      os.unsetf(std::ios_base::floatfield);
    }
  } else if (exp_max - exp_min > 4) {
    f.width = std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99 ? 12 : 11;
    os << std::scientific << std::setprecision(4);
  } else {
    os << std::fixed << std::setprecision(4);
    if (exp_max > 5 || exp_max < 0) {
      f.width = 7;
      f.scale = std::pow(10, exp_max - 1);
    } else {
      f.width = exp_max == 0 ? 7 : static_cast<std::int64_t>(exp_max) + 6;
    }
  }
  return f;
}

void print_scale(std::ostream& os, double scale) {
  std::ios saved(nullptr);
  saved.copyfmt(os);
  os.unsetf(std::ios_base::floatfield);
  os << scale << " *\n";
  os.copyfmt(saved);
}

void indent(std::ostream& os, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) os << ' ';
}

// A rows x cols block of row-major values.
void print_matrix(std::ostream& os, const double* v, std::int64_t rows, std::int64_t cols, std::int64_t indentation) {
  const Format f = choose_format(os, v, rows * cols);
  indent(os, indentation);
  const std::int64_t per_line = (kLineWidth - indentation) / (f.width + 1);
  for (std::int64_t first = 0; first < cols;) {
    const std::int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0) os << '\n';
      os << "Columns " << first + 1 << " to " << last + 1;
      indent(os, indentation);
    }
    if (f.scale != 1) {
      print_scale(os, f.scale);
      indent(os, indentation);
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = first; c <= last; ++c) {
        os << std::setw(static_cast<int>(f.width)) << v[r * cols + c] / f.scale;
        if (c != last) {
          os << ' ';
          continue;
        }
        os << '\n';
        if (r != rows - 1) indent(os, indentation + (f.scale != 1 ? 1 : 0));
      }
    }
    first = last + 1;
  }
}

void print_values(std::ostream& os, const std::vector<double>& v, const trace::Geometry& g) {
  if (g.ndim == 0) {
    os.unsetf(std::ios_base::floatfield);
    os << v[0] << '\n';
    return;
  }
  if (g.numel() == 0) return;
  if (g.ndim == 1) {
    const Format f = choose_format(os, v.data(), g.sizes[0]);
    if (f.scale != 1) print_scale(os, f.scale);
    for (double x : v) os << std::setw(static_cast<int>(f.width)) << x / f.scale << '\n';
    return;
  }
  const std::int64_t rows = g.sizes[g.ndim - 2], cols = g.sizes[g.ndim - 1];
  if (g.ndim == 2) return print_matrix(os, v.data(), rows, cols, 0);
  // Leading indices as an odometer whose first digit turns fastest.
  const int lead = g.ndim - 2;
  std::int64_t at[trace::kMaxDims] = {};
  const std::int64_t blocks = g.numel() / (rows * cols);
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (b) os << '\n';
    std::int64_t offset = 0;
    os << '(';
    for (int d = 0; d < lead; ++d) {
      os << at[d] + 1 << ',';
      offset = offset * g.sizes[d] + at[d];
    }
    os << ".,.) = \n";
    print_matrix(os, v.data() + offset * rows * cols, rows, cols, 1);
    for (int d = 0; d < lead && ++at[d] == g.sizes[d]; ++d) at[d] = 0;
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  profiler::CallerScope caller(__builtin_return_address(0));
  const auto& x = *t.impl();
  trace::materialize(x, profiler::CutReason::Print, false);
  std::ios saved(nullptr);
  saved.copyfmt(os);
  print_values(os, trace::read_elements<double>(x), x.geo);
  os.copyfmt(saved);
  os << "[ " << type_name(x.dtype) << "{";
  for (int d = 0; d < x.geo.ndim; ++d) os << (d ? "," : "") << x.geo.sizes[d];
  return os << "} ]";
}

}  // namespace kiln
