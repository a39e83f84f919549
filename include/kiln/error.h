// The exceptions kiln throws, and the check macro for its own invariants.
//
// kiln has two error channels. A user mistake (wrong shape, unsupported
// dtype, dim out of range, bad argument, exhausted memory budget) throws a
// kiln::Error subclass from the call the user wrote; the message starts with
// "[op] " naming the operation, then the shapes/dtypes/values involved, e.g.
//   "[matmul] [3, 4] @ [5, 6]: inner dimensions 4 and 5 differ".
// A broken invariant inside kiln is a bug in kiln, not in user code: it goes
// through KILN_CHECK and throws kiln::InternalError with file and line.
//
// Catch kiln::Error to handle every kiln failure; catch a subclass to handle
// one kind. All of them are std::runtime_error, so generic handlers work too.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace kiln {

/// Base of every error kiln throws. what() starts with "[op] ".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Shapes are incompatible (broadcasting, matmul inner dims) or invalid
/// (negative sizes, element count overflow).
class ShapeError : public Error {
 public:
  using Error::Error;
};

/// A dtype the op does not support, or two dtypes that do not promote.
class DtypeError : public Error {
 public:
  using Error::Error;
};

/// A dim or an index outside its range.
class IndexError : public Error {
 public:
  using Error::Error;
};

/// A bad argument value: null pointer, malformed environment variable,
/// a limit of 0 where at least 1 is needed, and the like.
class ValueError : public Error {
 public:
  using Error::Error;
};

/// A file cannot be read as what it should be: missing, unreadable,
/// truncated, of the wrong kind (magic number), or inconsistent with the
/// files it goes with. The message names the file and what was expected.
class IOError : public Error {
 public:
  using Error::Error;
};

/// An allocation would exceed the memory budget (or the system refused it).
/// The message reports what holds memory: live bytes per size class, peak,
/// pooled bytes and the budget, so the user can see what to free or raise.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// Autograd was asked for something the recorded graph cannot give: backward
/// of a tensor that does not require grad, a second backward through freed
/// saved values, an in-place write to a leaf that requires grad or to a value
/// saved for backward.
class AutogradError : public Error {
 public:
  using Error::Error;
};

/// An invariant inside kiln is broken: a kiln bug. Thrown by KILN_CHECK;
/// the message starts with "[internal] file:line:".
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {

/// Concatenates anything streamable into one string, for error messages:
/// cat("[add] shapes ", a, " and ", b, " do not broadcast").
template <class... A>
std::string cat(const A&... a) {
  std::ostringstream out;
  ((out << a), ...);
  return out.str();
}

// Out of line and cold so that a KILN_CHECK costs one compare on the hot path.
[[noreturn, gnu::cold, gnu::noinline]] inline void check_failed(const char* file, int line,
                                                                const char* condition,
                                                                const std::string& message) {
  throw InternalError(cat("[internal] ", file, ":", line, ": ", condition,
                          message.empty() ? "" : " ", message));
}

}  // namespace detail
}  // namespace kiln

/// Checks an invariant of kiln's own code (not user input: that gets a
/// specific kiln::Error subclass). On failure throws kiln::InternalError
/// "[internal] file:line: <cond> <message>"; the optional arguments are
/// streamed into the message and evaluated only on failure.
#define KILN_CHECK(cond, ...)                                                       \
  do {                                                                              \
    if (!(cond)) [[unlikely]]                                                       \
      ::kiln::detail::check_failed(__FILE__, __LINE__, #cond,                       \
                                   ::kiln::detail::cat(__VA_ARGS__));               \
  } while (0)
