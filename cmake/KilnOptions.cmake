# Build type, user options, warnings and sanitizers.

get_property(_kiln_multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
if(NOT _kiln_multi_config AND NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type (Release, RelWithDebInfo, Debug, MinSizeRel)" FORCE)
endif()

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

option(KILN_BUILD_TESTS "Build the GoogleTest suites under tests/" ON)
option(KILN_BUILD_EXAMPLES "Build the programs under examples/" ON)
option(KILN_BUILD_FUZZ "Build the libFuzzer targets under tests/fuzz/ (clang only; make fuzz)" OFF)
option(KILN_WERROR "Treat compiler warnings in kiln's own code as errors" OFF)
# KILN_BUILD_BENCH defaults to ON only when Google Benchmark is found (see KilnDependencies).

set(KILN_SANITIZE "" CACHE STRING
    "Sanitizers for everything built here: empty, 'address,undefined' (or 'address;undefined'), 'thread'")
set_property(CACHE KILN_SANITIZE PROPERTY STRINGS "" "address,undefined" "address" "undefined" "thread")

# Warnings for kiln's own targets (not for third-party headers: those are SYSTEM includes).
add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter
                       $<$<BOOL:${KILN_WERROR}>:-Werror>)

# Sanitizers apply to every target of this build: library, tests, benchmarks, examples.
set(KILN_SANITIZERS "")
if(KILN_SANITIZE)
  string(REPLACE "," ";" KILN_SANITIZERS "${KILN_SANITIZE}")
  string(REPLACE " " "" KILN_SANITIZERS "${KILN_SANITIZERS}")
  list(REMOVE_DUPLICATES KILN_SANITIZERS)
  foreach(_san IN LISTS KILN_SANITIZERS)
    if(NOT _san MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "KILN_SANITIZE: unknown sanitizer '${_san}' (use address, undefined, thread, leak)")
    endif()
  endforeach()
  if("thread" IN_LIST KILN_SANITIZERS AND ("address" IN_LIST KILN_SANITIZERS OR "leak" IN_LIST KILN_SANITIZERS))
    message(FATAL_ERROR "KILN_SANITIZE: 'thread' cannot be combined with 'address' or 'leak'")
  endif()
  list(JOIN KILN_SANITIZERS "," _kiln_san_flag)
  add_compile_options(-fsanitize=${_kiln_san_flag} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${_kiln_san_flag})
  if("undefined" IN_LIST KILN_SANITIZERS)
    # Any UB report fails the test instead of printing and carrying on.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
