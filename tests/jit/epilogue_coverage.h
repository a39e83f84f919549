// A GEMM epilogue for tests: counts how often each element of C was handed
// to it (every element must be seen exactly once).
#pragma once

#include <cstdint>
#include <vector>

#include "jit/kernels/gemm.h"

namespace kgemm {

struct Coverage {
  std::int64_t n;  // columns of C
  std::vector<int> seen;

  Coverage(std::int64_t m, std::int64_t cols) : n(cols), seen(static_cast<std::size_t>(m * cols), 0) {}

  kiln::jit::kernels::GemmEpilogue epilogue() const { return {&count_block, this}; }

  static void count_block(const void* context, std::int64_t row, std::int64_t rows, std::int64_t col,
                          std::int64_t cols) {
    auto* cov = static_cast<Coverage*>(const_cast<void*>(context));
    for (std::int64_t i = row; i < row + rows; ++i)
      for (std::int64_t j = col; j < col + cols; ++j) ++cov->seen[i * cov->n + j];
  }
};

}  // namespace kgemm
