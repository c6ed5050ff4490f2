# Tests of the contract area (contract/, kda-harness validate/errors).

# docs/errors.md must equal what the catalog generates.
add_test(NAME contract.docs_errors_md_up_to_date
         COMMAND ${CMAKE_COMMAND} -DHARNESS=$<TARGET_FILE:kda-harness> -DDOC=${PROJECT_SOURCE_DIR}/docs/errors.md
                 -DOUT=${CMAKE_CURRENT_BINARY_DIR}/errors.generated.md
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/contract_errors_doc_check.cmake)
