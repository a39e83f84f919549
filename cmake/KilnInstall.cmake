# Install and export, so that find_package(kiln CONFIG) + target_link_libraries(app kiln::kiln)
# works from an install prefix (cmake --install build --prefix P; -DCMAKE_PREFIX_PATH=P)
# and from the build tree (-Dkiln_DIR=<build dir>).
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/kiln" CACHE STRING
    "Where kilnConfig.cmake is installed, relative to the prefix")

install(TARGETS kiln EXPORT kilnTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
# kiln::distributed (c10d over MPI): libkiln_distributed.so links MPI
# privately, so consumers need no MPI package at configure time; the system's
# libmpi is found at link and run time as any shared library's.
if(TARGET kiln_distributed)
  set_target_properties(kiln_distributed PROPERTIES EXPORT_NAME distributed)
  install(TARGETS kiln_distributed EXPORT kilnTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
if(TARGET kiln_cli)
  install(TARGETS kiln_cli kiln_tune RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()

# Public headers: everything under include/kiln. Glob recorded so that creating
# the folder later re-runs CMake.
file(GLOB_RECURSE _kiln_public_headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/include/kiln/*")
if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/include/kiln")
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/kiln" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
endif()

install(EXPORT kilnTargets NAMESPACE kiln:: FILE kilnTargets.cmake DESTINATION "${KILN_INSTALL_CMAKEDIR}")
export(EXPORT kilnTargets NAMESPACE kiln:: FILE "${PROJECT_BINARY_DIR}/kilnTargets.cmake")

# One kilnConfig.cmake serves both: it includes kilnTargets.cmake from its own directory.
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/kilnConfig.cmake"
  INSTALL_DESTINATION "${KILN_INSTALL_CMAKEDIR}"
  NO_SET_AND_CHECK_MACRO)
# 0.x: a minor release may break the API, so only the same major.minor matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/kilnConfig.cmake" "${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake"
  DESTINATION "${KILN_INSTALL_CMAKEDIR}")
