// The one-line port from LibTorch: include this instead of <torch/torch.h>
// and code written against `torch::` compiles against kiln.
#pragma once

// What <torch/torch.h> brings in transitively and LibTorch programs use
// without including it (std::isnan in LibTorch's MNIST example, printf).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <kiln/kiln.h>
#include <kiln/serialize.h>

namespace torch = kiln;

/// LibTorch's names of kiln's module and option macros.
#define TORCH_MODULE(Name) KILN_MODULE(Name)
#define TORCH_ARG(T, name) KILN_ARG(T, name)

namespace kiln {
/// LibTorch's torch::str (c10::str): the arguments streamed into one string.
template <class... A>
std::string str(const A&... a) {
  return detail::cat(a...);
}
}  // namespace kiln

namespace kiln::detail {
/// TORCH_CHECK's message: the streamed arguments, or LibTorch's default.
template <class... A>
std::string torch_check_message(const char* condition, const A&... a) {
  if constexpr (sizeof...(A) == 0) return cat("Expected ", condition, " to be true, but got false.");
  else return cat(a...);
}
}  // namespace kiln::detail

/// LibTorch's checks in user code: TORCH_CHECK throws kiln::Error (catch it
/// as kiln::Error or std::exception) with the streamed message; AT_ASSERT and
/// TORCH_INTERNAL_ASSERT are invariants and throw kiln::InternalError with
/// file and line, like KILN_CHECK.
#define TORCH_CHECK(cond, ...)                                                                     \
  do {                                                                                             \
    if (!(cond)) [[unlikely]]                                                                      \
      throw ::kiln::Error(::kiln::detail::torch_check_message(#cond __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)
#define TORCH_INTERNAL_ASSERT(cond, ...) KILN_CHECK(cond __VA_OPT__(, ) __VA_ARGS__)
#define AT_ASSERT(cond, ...) KILN_CHECK(cond __VA_OPT__(, ) __VA_ARGS__)
