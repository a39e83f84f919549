# One OBJECT library kiln_<folder> per layer folder that has sources, all linked
# into ONE shared library `kiln` (alias kiln::kiln).
#
# Layers, lowest first (DESIGN.md): profiler <- memory <- trace <- jit <- frontend,
# autotune -> profiler, jit -> autotune. Absent or empty folders are skipped, but
# their globs are recorded (CONFIGURE_DEPENDS): adding the first .cpp later makes
# the next build re-run CMake and pick the layer up.
set(KILN_LAYERS profiler memory autotune trace jit frontend)

# Third-party libraries each layer uses (compile usage + link). LLVM stays in jit/.
set(KILN_LAYER_DEPS_profiler unwind::unwind)
set(KILN_LAYER_DEPS_memory   TBB::tbb)
set(KILN_LAYER_DEPS_autotune nlohmann_json::nlohmann_json)
set(KILN_LAYER_DEPS_trace    TBB::tbb xxHash::xxhash)
set(KILN_LAYER_DEPS_jit      kiln_llvm TBB::tbb)
set(KILN_LAYER_DEPS_frontend TBB::tbb ZLIB::ZLIB xxHash::xxhash)

# What every translation unit of kiln itself sees: C++20, the repo root (private
# headers, e.g. "trace/segment.h") and include/ (public headers, <kiln/kiln.h>).
add_library(kiln_internal INTERFACE)
target_compile_features(kiln_internal INTERFACE cxx_std_20)
target_include_directories(kiln_internal INTERFACE "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/include")
target_link_libraries(kiln_internal INTERFACE kiln_warnings Threads::Threads)

set(KILN_PRESENT_LAYERS "")
foreach(_layer IN LISTS KILN_LAYERS)
  file(GLOB_RECURSE _kiln_layer_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${_layer}/*.cpp")
  # frontend/distributed/ is its own library (below): libkiln does not link MPI.
  list(FILTER _kiln_layer_sources EXCLUDE REGEX "/frontend/distributed/")
  if(NOT _kiln_layer_sources)
    continue()
  endif()
  add_library(kiln_${_layer} OBJECT ${_kiln_layer_sources})
  set_target_properties(kiln_${_layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(kiln_${_layer} PUBLIC kiln_internal ${KILN_LAYER_DEPS_${_layer}})
  list(APPEND KILN_PRESENT_LAYERS ${_layer})
endforeach()

add_library(kiln SHARED)
add_library(kiln::kiln ALIAS kiln)
foreach(_layer IN LISTS KILN_PRESENT_LAYERS)
  target_link_libraries(kiln PRIVATE kiln_${_layer})   # adds the layer's objects
endforeach()
if(NOT KILN_PRESENT_LAYERS)
  # Early in the project no layer has sources yet; keep the tree configurable.
  message(WARNING "kiln: no layer folder has .cpp sources yet; libkiln.so will be empty")
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/kiln_empty.cpp" CONTENT "// no layer sources yet\n")
  target_sources(kiln PRIVATE "${PROJECT_BINARY_DIR}/kiln_empty.cpp")
endif()

target_compile_features(kiln PUBLIC cxx_std_20)
target_include_directories(kiln PUBLIC
  "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>"
  "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
# Private: consumers of libkiln.so need none of these packages to compile or link.
# mvec: glibc's vector math (libmvec.so.1), which tier 0's kernels call on AVX2
# CPUs (jit/kernels/libmvec.h).
target_link_libraries(kiln PRIVATE kiln_internal kiln_llvm TBB::tbb xxHash::xxhash unwind::unwind ZLIB::ZLIB
                      Threads::Threads mvec)
# Unresolved symbols fail when linking libkiln.so, not later in every test and consumer.
target_link_options(kiln PRIVATE "LINKER:--no-undefined")
set_target_properties(kiln PROPERTIES
  OUTPUT_NAME kiln
  EXPORT_NAME kiln
  VERSION ${PROJECT_VERSION}
  SOVERSION 0
  # Installed libkiln.so keeps an RPATH to non-system dependency dirs (e.g. /usr/lib/llvm-19/lib).
  INSTALL_RPATH_USE_LINK_PATH ON)

# frontend/distributed/: kiln::distributed (c10d over MPI) and data-parallel
# training, a library of its own over libkiln, so that only programs that
# scale out link MPI. MPI appears nowhere else.
file(GLOB _kiln_distributed_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/frontend/distributed/*.cpp")
if(_kiln_distributed_sources)
  find_package(MPI REQUIRED COMPONENTS CXX)
  add_library(kiln_distributed SHARED ${_kiln_distributed_sources})
  add_library(kiln::distributed ALIAS kiln_distributed)
  target_link_libraries(kiln_distributed PUBLIC kiln PRIVATE kiln_internal MPI::MPI_CXX TBB::tbb)
  target_link_options(kiln_distributed PRIVATE "LINKER:--no-undefined")
  set_target_properties(kiln_distributed PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
                        INSTALL_RPATH_USE_LINK_PATH ON)
endif()

# tools/: the `kiln` command-line program. It is a program, not part of libkiln.so:
# it reads the files a kiln program writes (stats snapshots, the kernel cache) and
# uses public headers only (DESIGN.md), so it links no kiln code. Everything but
# main() is a static library that tests/tools links too.
file(GLOB_RECURSE _kiln_tool_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tools/*.cpp")
list(REMOVE_ITEM _kiln_tool_sources "${PROJECT_SOURCE_DIR}/tools/main.cpp")
# tools/tune/: `kiln tune` runs kiln's kernels, so it is a program of its own,
# kiln-tune, linked with libkiln; `kiln tune ...` executes it (tools/main.cpp).
file(GLOB _kiln_tune_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tools/tune/*.cpp")
list(REMOVE_ITEM _kiln_tool_sources ${_kiln_tune_sources})
if(_kiln_tool_sources)
  add_library(kiln_tool_core STATIC ${_kiln_tool_sources})
  target_compile_features(kiln_tool_core PUBLIC cxx_std_20)
  target_include_directories(kiln_tool_core PUBLIC "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/include")
  target_link_libraries(kiln_tool_core PUBLIC xxHash::xxhash nlohmann_json::nlohmann_json PRIVATE kiln_warnings)
  add_executable(kiln_cli "${PROJECT_SOURCE_DIR}/tools/main.cpp")
  target_link_libraries(kiln_cli PRIVATE kiln_tool_core kiln_warnings)
  set_target_properties(kiln_cli PROPERTIES
    OUTPUT_NAME kiln
    RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tools")
  add_executable(kiln_tune ${_kiln_tune_sources})
  target_link_libraries(kiln_tune PRIVATE kiln kiln_tool_core kiln_warnings)
  set_target_properties(kiln_tune PROPERTIES
    OUTPUT_NAME kiln-tune
    RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tools"
    INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  add_dependencies(kiln_cli kiln_tune)   # `kiln tune` finds kiln-tune beside itself
  list(APPEND KILN_PRESENT_LAYERS tools)
endif()
