# The Python package's build stamp: one SHA-256 over the sources its wheel is built from (the
# libraries', C library's and command line's folders, the golden set, the install rules, the
# package's Python files, the build files; their tests left out). The wheel carries it
# (kda_harness/_build_info.py, capi/CMakeLists.txt) and scripts/setup-python.sh compares it with
# the checkout's, so a copy built from other sources is reinstalled even when it imports.
#   include()d:  kda_source_stamp(<repository root> <out variable>)
#   as a script: cmake -DSOURCE=<repository root> -P python/source_stamp.cmake  (prints it)
function(kda_source_stamp root out)
  set(patterns "")
  foreach(dir contract cases reference engine operators kernels capi golden tools include packaging python/kda_harness)
    foreach(ext cpp hpp h c cu cuh py in json txt cmake safetensors)
      list(APPEND patterns ${root}/${dir}/*.${ext})
    endforeach()
  endforeach()
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE ${root} ${patterns})
  list(FILTER files EXCLUDE REGEX "(^|/)tests/")  # the wheel ships no tests
  list(APPEND files CMakeLists.txt python/pyproject.toml python/source_stamp.cmake python/build_info.py.in)
  list(SORT files)
  set(all "")
  foreach(f IN LISTS files)
    file(SHA256 ${root}/${f} h)
    string(APPEND all "${f} ${h}\n")
  endforeach()
  string(SHA256 stamp "${all}")
  set(${out} ${stamp} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT SOURCE)
    message(FATAL_ERROR "usage: cmake -DSOURCE=<repository root> -P python/source_stamp.cmake")
  endif()
  kda_source_stamp(${SOURCE} stamp)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo ${stamp})
endif()
