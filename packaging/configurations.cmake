# Configures every configuration the project ships, each into WORK/<name>, configure and
# generate only (seconds each): a CMake error in any of them (a target that does not exist
# there, a dependency it never looks up) fails here instead of after a long build. They are,
# fastest first (the first failure stops the run):
#   - the wheel's: KDA_WHEEL, as python/pyproject.toml's cmake.define sets it;
#   - the wheel's again with dlpack hidden: it must fail naming the Debian package to install;
#   - each configure preset of CMakePresets.json (one that compiles CUDA only where nvcc is).
# Usage: cmake -DSOURCE=<repository root> -DWORK=<folder> -P packaging/configurations.cmake
# (.ci/run runs it before anything is built; ctest runs it as packaging.configurations).
if(NOT SOURCE OR NOT WORK)
  message(FATAL_ERROR "usage: cmake -DSOURCE=<repository root> -DWORK=<folder> -P packaging/configurations.cmake")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Runs one configure; `expect` is "pass" or a regular expression the failed configure's output must match.
function(configure name expect)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${CMAKE_COMMAND} ${ARGN} WORKING_DIRECTORY ${SOURCE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP t1 "%s")
  math(EXPR seconds "${t1} - ${t0}")
  if(expect STREQUAL "pass")
    set(ok FALSE)
    if(rc EQUAL 0)
      set(ok TRUE)
    endif()
  else()
    string(REGEX MATCH "${expect}" found "${out}")
    set(ok FALSE)
    if(NOT rc EQUAL 0 AND found)
      set(ok TRUE)
    endif()
  endif()
  if(ok)
    message("configure ${name}: ok (${seconds} s)")
  else()
    message("configure ${name}: FAILED (exit ${rc}, ${seconds} s; expected: ${expect})\n${out}")
    message(FATAL_ERROR "configure ${name} failed")  # at once: the fastest ones run first
  endif()
endfunction()

set(wheel -S ${SOURCE} -G Ninja -DCMAKE_BUILD_TYPE=Release -DKDA_WHEEL=ON -DSKBUILD=ON)
configure("the wheel's (KDA_WHEEL)" pass ${wheel} -B ${WORK}/wheel)
configure("the wheel's without dlpack" "Missing build dependencies.*apt-get install[ \n]+libdlpack-dev" ${wheel} -B ${WORK}/wheel-no-dlpack
          -DCMAKE_DISABLE_FIND_PACKAGE_dlpack=ON)


file(READ ${SOURCE}/CMakePresets.json presets)
string(JSON count LENGTH "${presets}" configurePresets)
math(EXPR last "${count} - 1")
set(have_nvcc FALSE)
find_program(nvcc nvcc PATHS /usr/local/cuda/bin)
if(nvcc)
  set(have_nvcc TRUE)
endif()
foreach(i RANGE ${last})
  string(JSON name GET "${presets}" configurePresets ${i} name)
  string(JSON cuda ERROR_VARIABLE no_cuda_key GET "${presets}" configurePresets ${i} cacheVariables KDA_ENABLE_CUDA)
  if(cuda AND NOT have_nvcc)
    message("configure preset ${name}: SKIPPED (it compiles CUDA and this machine has no nvcc)")
    continue()
  endif()
  configure("preset ${name}" pass --preset ${name} -B ${WORK}/${name})
endforeach()

file(REMOVE_RECURSE ${WORK})
