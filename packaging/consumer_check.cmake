# Installs the build tree into WORK/prefix, then as a user of that tree would:
#   1. configures, builds and runs the C++ project in SOURCE (find_package with a component and
#      a version range) with the CUDA toolkit hidden from find_package;
#   2. builds the C program PROGRAM_SOURCE and the C plugin PLUGIN_SOURCE with only
#      `pkg-config --cflags --libs kda_harness_capi`, runs the program as built and judges the
#      plugin with the installed kda-harness (check --backend plugin:), neither with
#      LD_LIBRARY_PATH: the .pc file's rpath must find the C library.
# Any step failing fails the test.
file(REMOVE_RECURSE ${WORK})
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${what}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()
set(prefix ${WORK}/prefix)
run("install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
run("configure the consumer" ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
run("build the consumer" ${CMAKE_COMMAND} --build ${WORK}/build)
run("run the consumer" ${WORK}/build/consumer)

file(GLOB pc_dirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pc_dirs}")
run("pkg-config" pkg-config --cflags --libs kda_harness_capi)
string(STRIP "${run_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
unset(ENV{LD_LIBRARY_PATH})
run("build the C program with pkg-config's flags" cc -std=c11 -Wall -Wextra -Werror ${PROGRAM_SOURCE}
    -o ${WORK}/hello ${flags})
run("run the C program as built" ${WORK}/hello)
run("build the C plugin with pkg-config's flags" cc -std=c11 -Wall -Wextra -Werror -shared -fPIC ${PLUGIN_SOURCE}
    -o ${WORK}/libc_reference_plugin.so ${flags})
run("judge the C plugin with the installed kda-harness" ${prefix}/bin/kda-harness check --no-progress
    --backend plugin:${WORK}/libc_reference_plugin.so --suites kernel,kernel-truth,envelope
    --cases kernel=20 --cases kernel-truth=10 --cases envelope=20)
