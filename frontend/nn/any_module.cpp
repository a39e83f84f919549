// AnyModule's errors, out of line so the header need not demangle.
#include <kiln/nn/containers/any.h>

#include <kiln/error.h>

#include "frontend/demangle.h"

namespace kiln::nn::detail {

void throw_bad_module_cast(const char* op, const Module& module, const std::type_info& wanted) {
  throw ValueError(kiln::detail::cat("[", op, "] the module is a ", frontend::demangle(typeid(module)), " (",
                                     module.name(), "), not a ", frontend::demangle(wanted)));
}

void throw_empty_any_module(const char* what) {
  throw ValueError(kiln::detail::cat("[nn::AnyModule] cannot call ", what, " on an empty AnyModule"));
}

}  // namespace kiln::nn::detail
