// The readable name of a C++ type ("Net", "MyFunction"): node and module
// names default to it, as LibTorch's do.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <typeinfo>

namespace kiln::frontend {

inline std::string demangle(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  return name;
}

}  // namespace kiln::frontend
