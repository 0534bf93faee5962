# Installs the embeddable GPU library as a CMake package:
#   cmake --install build --prefix /opt/kbit
#   find_package(kbit REQUIRED)                      # in the consumer, with CMAKE_PREFIX_PATH=/opt/kbit
#   target_link_libraries(app PRIVATE kbit::gpu)     # #include "kbit/gpu.h"
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(kbit_core PROPERTIES EXPORT_NAME core)
set_target_properties(kbit_gpu PROPERTIES EXPORT_NAME gpu)
install(TARGETS kbit_core kbit_gpu EXPORT kbitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/kbit/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kbit
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/kernels/kbit/gpu.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kbit)
install(EXPORT kbitTargets NAMESPACE kbit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kbit)

file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/kbitConfig.cmake.in [=[
@PACKAGE_INIT@
include(CMakeFindDependencyMacro)
find_dependency(Threads)
find_dependency(CUDAToolkit)
find_dependency(nlohmann_json)
include("${CMAKE_CURRENT_LIST_DIR}/kbitTargets.cmake")
check_required_components(kbit)
]=])
configure_package_config_file(${CMAKE_CURRENT_BINARY_DIR}/kbitConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/kbitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kbit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kbitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kbitConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kbitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kbit)
