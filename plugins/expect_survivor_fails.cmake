# `kda-harness mutants` on a folder whose only "mutant" is the unmutated plugin under a
# mutant's file name: it must survive every suite, and the command must say so and exit 1.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY_FILE ${PLUGIN} ${WORK}/libkda_cpu_example_kda_replayssm.so)
file(COPY_FILE ${PLUGIN} ${WORK}/libkda_cpu_example_kda_replayssm_mutant_none.so)
execute_process(COMMAND ${HARNESS} mutants --backend cpu --dir ${WORK} --cases 10 --manifest ${MANIFEST}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 (a mutant survived), got ${rc}")
endif()
if(NOT out MATCHES "SURVIVED" OR NOT out MATCHES "1 survived")
  message(FATAL_ERROR "the surviving mutant is not reported")
endif()
