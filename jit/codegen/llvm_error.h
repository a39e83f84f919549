// The boundary between LLVM's error values and kiln's exceptions: every
// llvm::Error / llvm::Expected that reaches kiln code goes through here and
// becomes a kiln::InternalError naming what was being done.
// Private to jit/codegen and jit/orc (includes LLVM headers).
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include <llvm/Support/Error.h>

#include <kiln/error.h>

namespace kiln::jit {

[[noreturn]] inline void throw_llvm_error(const char* what, llvm::Error error) {
  throw InternalError(detail::cat("[jit] ", what, ": ", llvm::toString(std::move(error))));
}

/// Throws InternalError "[jit] <what>: <LLVM message>" if `error` is set.
inline void check(llvm::Error error, const char* what) {
  if (error) throw_llvm_error(what, std::move(error));
}

/// The value of `expected`, or InternalError "[jit] <what>: <LLVM message>".
template <class T>
T unwrap(llvm::Expected<T> expected, const char* what) {
  if (!expected) throw_llvm_error(what, expected.takeError());
  if constexpr (std::is_reference_v<T>) return *expected;
  else return std::move(*expected);
}

}  // namespace kiln::jit
