# Installs the build tree into WORK/prefix, then configures, builds and runs the consumer
# project in SOURCE against it. Any step failing fails the test.
file(REMOVE_RECURSE ${WORK})
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${what}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()
run("install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
run("configure the consumer" ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run("build the consumer" ${CMAKE_COMMAND} --build ${WORK}/build)
run("run the consumer" ${WORK}/build/consumer)
