# Runs `kda-harness check` against a plugin with a planted bug: it must exit 1, and its
# failure listing must name a tensor element with its row and token ("out[2, 0, 1] (token 0
# row 2)", "k_cache[...] (token 3 row 1)").
execute_process(COMMAND ${HARNESS} check --backend plugin:${PLUGIN} --suites kernel --cases kernel=100
                        --gpu-work-budget 3e6 --no-progress
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit 1 (a failed case), got ${rc}")
endif()
if(NOT out MATCHES "(out|initial_state|d_cache|k_cache|g_cache)\\[[0-9, ]+\\] \\(token [0-9]+ row [0-9]+")
  message(FATAL_ERROR "the failure does not name the tensor, index, token and row")
endif()
if(NOT out MATCHES "kda-harness case \"[^\"]+\" --backend plugin:")
  message(FATAL_ERROR "the failure has no replay line")
endif()
