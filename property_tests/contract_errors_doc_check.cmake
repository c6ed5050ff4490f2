# ctest script: fails when docs/errors.md differs from `kda-harness errors --markdown`.
# Run as: cmake -DHARNESS=<kda-harness> -DDOC=<docs/errors.md> -DOUT=<tmp file> -P this file
execute_process(COMMAND ${HARNESS} errors --markdown OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "`kda-harness errors --markdown` failed (exit ${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${DOC} RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "docs/errors.md is out of date with contract/error_catalog.json. Regenerate it from the "
                      "repository root with:\n  ${HARNESS} errors --markdown > docs/errors.md\n"
                      "(generated copy: ${OUT})")
endif()
