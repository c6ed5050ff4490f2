# `cmake --install`: the harness as a CMake package with components, the command line, the C
# library, the plugin ABI header, our kernel's plugin and pkg-config files. A consumer writes
#   find_package(kda_harness 0.1...0.9 REQUIRED COMPONENTS engine)
#   target_link_libraries(my_tests PRIVATE kda_harness::engine)
# and includes "kda_harness/engine/backends/backend.hpp", "kda_harness/plugin.h", ... (one prefix).
# Components, one export set each (kda_harnessConfig.cmake loads those asked for and what they
# need; none asked for: all but kernels):
#   contract   kda_harness::contract: validate(), the error catalog, call metadata
#   reference  kda_harness::cases, ::reference: the case configs, the Eigen reference
#   engine     kda_harness::plugin_support, ::engine: backends, plugins, the driver (the CPU
#              engine: its cuda backend says it was not compiled; no CUDA toolkit needed)
#   capi       kda_harness::capi: libkda_harness_capi.so and kda_harness/kda_capi.h
#   kernels    CUDA builds only: kda_harness::kernels and kda_harness::engine_cuda (the
#              engine with our kernel as its cuda backend); needs the CUDA toolkit
# Also: bin/kda-harness; in CUDA builds our kernel's plugins, lib/kda_harness/libkda_cuda_*.so;
# lib/pkgconfig/kda_harness_plugin.pc (plugin.h's flags) and kda_harness_capi.pc; the golden set,
# share/kda_harness/golden (kda-harness finds it from bin/). The wheel (KDA_WHEEL) installs the
# same tree under site-packages/kda_harness/, with DLPack's header added (plugin.h includes it),
# so that a plugin compiles with the wheel's pkg-config flags where libdlpack-dev is missing.
include(CMakePackageConfigHelpers)

set(kda_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kda_harness)
set(kda_components contract reference engine)
set(kda_component_contract kda_project_options kda_contract)
set(kda_component_reference kda_cases kda_reference)
set(kda_component_engine kda_plugin_support kda_engine)
if(KDA_ENABLE_CUDA)
  # The engine without our kernel, from the same objects: consumers of `engine` need no CUDA.
  add_library(kda_engine_cpu STATIC
              "$<FILTER:$<TARGET_OBJECTS:kda_engine>,EXCLUDE,/(gpu_probe_cuda|device_mirror|cuda_backend)\\.cpp\\.o$>"
              ${PROJECT_SOURCE_DIR}/engine/backends/gpu_probe_none.cpp ${PROJECT_SOURCE_DIR}/engine/backends/cuda_backend_none.cpp)
  target_link_libraries(kda_engine_cpu PUBLIC kda_plugin_support kda_reference kda_cases kda_contract kda_project_options
                        dlpack::dlpack fmt::fmt-header-only ${CMAKE_DL_LIBS})
  set(kda_component_engine kda_plugin_support kda_engine_cpu)
  list(APPEND kda_components kernels)
  set(kda_component_kernels kda_kernels kda_engine)
  set_target_properties(kda_engine_cpu PROPERTIES EXPORT_NAME engine)
  set_target_properties(kda_engine PROPERTIES EXPORT_NAME engine_cuda)
else()
  set_target_properties(kda_engine PROPERTIES EXPORT_NAME engine)
endif()
if(TARGET kda_harness_capi)
  list(APPEND kda_components capi)
  set(kda_component_capi kda_harness_capi)
  set_target_properties(kda_harness_capi PROPERTIES EXPORT_NAME capi)
  target_include_directories(kda_harness_capi INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(FILES ${PROJECT_SOURCE_DIR}/capi/kda_capi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness)
endif()
foreach(lib kda_project_options kda_contract kda_cases kda_reference kda_plugin_support kda_kernels)
  if(TARGET ${lib})
    string(REGEX REPLACE "^kda_" "" short ${lib})
    set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short})
  endif()
endforeach()
foreach(component IN LISTS kda_components)
  install(TARGETS ${kda_component_${component}} EXPORT kda_harness_${component}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT kda_harness_${component} NAMESPACE kda_harness:: DESTINATION ${kda_cmake_dir}
          FILE kda_harness_${component}_targets.cmake)
endforeach()

# The headers under one prefix, kda_harness/: the sources include each other as "contract/...",
# "engine/...", so the installed copies get that prefix added (packaging/prefix_includes.cmake).
foreach(dir contract cases reference engine operators)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness/${dir}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "tests" EXCLUDE)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/kernels/row_status.hpp ${PROJECT_SOURCE_DIR}/kernels/replayssm_decode.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness/kernels)
install(FILES ${PROJECT_SOURCE_DIR}/include/kda_harness/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kda_harness)
if(KDA_WHEEL)
  get_target_property(kda_dlpack_includes dlpack::dlpack INTERFACE_INCLUDE_DIRECTORIES)
  find_file(kda_dlpack_header dlpack/dlpack.h PATHS ${kda_dlpack_includes} REQUIRED)
  install(FILES ${kda_dlpack_header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlpack)
endif()
install(CODE "set(KDA_INSTALLED_HEADERS \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}/kda_harness\")")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/prefix_includes.cmake)

# The command line, the golden set it checks by default, and our kernel's plugins (one per operator).
install(TARGETS kda-harness RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/golden/manifest.json DESTINATION ${CMAKE_INSTALL_DATADIR}/kda_harness/golden)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/golden/cases/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kda_harness/golden/cases
        FILES_MATCHING PATTERN "*.safetensors")
# Our kernel's plugins: one per operator that declares one (plugins/CMakeLists.txt).
get_property(kda_cuda_kernel_plugins GLOBAL PROPERTY kda_cuda_kernel_plugins)
foreach(plugin IN LISTS kda_cuda_kernel_plugins)
  install(TARGETS ${plugin} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/kda_harness)
endforeach()

# pkg-config, for plugin authors who do not use CMake; relocatable (the prefix is found from
# the .pc file's own folder, so `cmake --install --prefix` anywhere and the wheel in any
# site-packages work). kda_harness_capi's Libs carry an rpath to the library's folder: a program
# built with those flags alone runs without LD_LIBRARY_PATH.
file(RELATIVE_PATH KDA_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
foreach(pc kda_harness_plugin kda_harness_capi)
  if(pc STREQUAL kda_harness_capi AND NOT TARGET kda_harness_capi)
    continue()
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

set(KDA_PACKAGE_COMPONENTS ${kda_components})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kda_harnessConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfig.cmake INSTALL_DESTINATION ${kda_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kda_harnessConfigVersion.cmake
        DESTINATION ${kda_cmake_dir})

if(KDA_WHEEL)
  return()  # the wheel ships no tests
endif()
# A C++ project built against the installed tree (find_package with components and a version
# range, without the CUDA toolkit), a C program and a C plugin built with pkg-config's flags
# alone, the program run as built, the plugin judged by the installed kda-harness.
add_test(NAME packaging.install_and_consume
         COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR} -DSOURCE=${CMAKE_CURRENT_LIST_DIR}/consumer
                 -DPLUGIN_SOURCE=${CMAKE_CURRENT_LIST_DIR}/c_plugin/reference_plugin.c
                 -DPROGRAM_SOURCE=${CMAKE_CURRENT_LIST_DIR}/c_program/hello.c
                 -DWORK=${CMAKE_BINARY_DIR}/packaging-test -P ${CMAKE_CURRENT_LIST_DIR}/consumer_check.cmake)
set_tests_properties(packaging.install_and_consume PROPERTIES LABELS "packaging" TIMEOUT 1200)
