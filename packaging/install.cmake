# Install rules and the CMake package config of the harness's libraries. A consumer writes
#   find_package(kda_harness REQUIRED)
#   target_link_libraries(my_tests PRIVATE kda_harness::engine)
# and includes "engine/backend.hpp", "contract/validate.hpp", "kda_harness/plugin.h", ...
include(CMakePackageConfigHelpers)

set(kda_installed_libs kda_project_options kda_contract kda_cases kda_reference kda_plugin_support kda_engine)
if(KDA_ENABLE_CUDA)
  list(APPEND kda_installed_libs kda_kernels)
endif()
install(TARGETS ${kda_installed_libs} EXPORT kda_harness_targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Consumers name them kda_harness::contract, ::reference, ::engine, ...
foreach(lib IN LISTS kda_installed_libs)
  string(REGEX REPLACE "^kda_" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short})
endforeach()

# The headers keep their folders (the sources include "contract/...", "engine/..."); the
# plugin ABI is include/kda_harness/plugin.h.
foreach(dir contract cases reference engine)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness/${dir}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/kernels/row_status.hpp ${PROJECT_SOURCE_DIR}/kernels/replayssm_decode.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness/kernels)
install(FILES ${PROJECT_SOURCE_DIR}/include/kda_harness/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness)

set(kda_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kda_harness)
install(EXPORT kda_harness_targets NAMESPACE kda_harness:: DESTINATION ${kda_cmake_dir})
set(KDA_PACKAGE_WITH_CUDA ${KDA_ENABLE_CUDA})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kda_harnessConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfig.cmake INSTALL_DESTINATION ${kda_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfigVersion.cmake VERSION 0.1.0
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfigVersion.cmake
        DESTINATION ${kda_cmake_dir})

# A tiny project built against the installed tree: find_package, link, validate a call, run
# the reference backend on a case.
add_test(NAME packaging.install_and_consume
         COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR} -DSOURCE=${CMAKE_CURRENT_LIST_DIR}/consumer
                 -DWORK=${CMAKE_BINARY_DIR}/packaging-test -P ${CMAKE_CURRENT_LIST_DIR}/consumer_check.cmake)
set_tests_properties(packaging.install_and_consume PROPERTIES LABELS "packaging")
