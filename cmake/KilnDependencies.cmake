# Third-party dependencies. Everything here comes from Debian 12 packages
# (scripts/install-deps.sh installs them on a fresh machine).

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

# LLVM 19, always the single shared libLLVM-19.so (imported target `LLVM`), never
# the component static libraries. Used only by jit/ (and tools/).
find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
if(NOT TARGET LLVM)
  message(FATAL_ERROR "LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR} exports no shared `LLVM` target "
                      "(libLLVM-19.so); kiln links that library only.")
endif()
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} (${LLVM_DIR})")
separate_arguments(_kiln_llvm_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
list(TRANSFORM _kiln_llvm_defs REPLACE "^-D" "")
add_library(kiln_llvm INTERFACE)
target_include_directories(kiln_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(kiln_llvm INTERFACE ${_kiln_llvm_defs})
target_link_libraries(kiln_llvm INTERFACE LLVM)

find_package(TBB REQUIRED CONFIG)

# nlohmann json (header-only): the autotune/ tuning database's file format, and the `kiln` program's
# reader of the stats snapshot (Debian: nlohmann-json3-dev).
find_package(nlohmann_json 3.11 REQUIRED CONFIG)

# zlib: data::datasets::MNIST reads gzip-compressed IDX files (Debian: zlib1g-dev).
find_package(ZLIB REQUIRED)

# xxHash: Debian ships no CMake package, so build an imported target by hand.
if(NOT TARGET xxHash::xxhash)
  find_path(XXHASH_INCLUDE_DIR xxhash.h)
  find_library(XXHASH_LIBRARY NAMES xxhash)
  if(NOT XXHASH_INCLUDE_DIR OR NOT XXHASH_LIBRARY)
    message(FATAL_ERROR "xxHash not found (Debian: libxxhash-dev)")
  endif()
  add_library(xxHash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxHash::xxhash PROPERTIES
    IMPORTED_LOCATION "${XXHASH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XXHASH_INCLUDE_DIR}")
endif()

# libunwind (the nongnu one, libunwind.so.8; not LLVM's libunwind.so.1). The code
# defines UNW_LOCAL_ONLY itself before including <libunwind.h>.
if(NOT TARGET unwind::unwind)
  find_path(LIBUNWIND_INCLUDE_DIR libunwind.h)
  find_library(LIBUNWIND_LIBRARY NAMES unwind)
  if(NOT LIBUNWIND_INCLUDE_DIR OR NOT LIBUNWIND_LIBRARY)
    message(FATAL_ERROR "libunwind not found (Debian: libunwind-dev)")
  endif()
  add_library(unwind::unwind UNKNOWN IMPORTED)
  set_target_properties(unwind::unwind PROPERTIES
    IMPORTED_LOCATION "${LIBUNWIND_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBUNWIND_INCLUDE_DIR}")
endif()

if(KILN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# Google Benchmark is optional: without it bench/ is skipped.
find_package(benchmark CONFIG QUIET)
if(benchmark_FOUND)
  option(KILN_BUILD_BENCH "Build the Google Benchmark programs under bench/" ON)
else()
  option(KILN_BUILD_BENCH "Build the Google Benchmark programs under bench/" OFF)
  if(KILN_BUILD_BENCH)
    message(FATAL_ERROR "KILN_BUILD_BENCH=ON but Google Benchmark was not found (Debian: libbenchmark-dev)")
  endif()
endif()
