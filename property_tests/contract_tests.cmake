# Tests of the contract area (contract/, `kda-harness validate` and `errors`). Each suite is
# one ctest entry; the RapidCheck property runs 10,000 cases by default (RC_PARAMS).

add_library(kda_contract_testing STATIC
  contract_runtime_rows.cpp
)
target_link_libraries(kda_contract_testing PUBLIC kda_engine kda_contract rapidcheck GTest::gtest)

set(kda_contract_suites contract_property contract_expected_errors contract_runtime_values contract_no_write
    contract_catalog contract_metadata_json contract_hardening contract_overlap)
foreach(suite IN LISTS kda_contract_suites)
  add_executable(${suite}_test ${suite}_test.cpp)
  target_link_libraries(${suite}_test PRIVATE kda_contract_testing kda_project_options GTest::gtest_main)
  add_test(NAME contract.${suite} COMMAND ${suite}_test)
  set_tests_properties(contract.${suite} PROPERTIES LABELS contract)
endforeach()
set_tests_properties(contract.contract_property PROPERTIES ENVIRONMENT "RC_PARAMS=max_success=10000")
set_tests_properties(contract.contract_no_write PROPERTIES ENVIRONMENT "RC_PARAMS=max_success=1000")
set_tests_properties(contract.contract_hardening PROPERTIES ENVIRONMENT "RC_PARAMS=max_success=5000")
list(TRANSFORM kda_contract_suites APPEND _test OUTPUT_VARIABLE kda_contract_test_targets)
add_custom_target(contract_tests DEPENDS ${kda_contract_test_targets} kda-harness)

# docs/errors.md must equal what the catalog generates.
add_test(NAME contract.docs_errors_md_up_to_date
         COMMAND ${CMAKE_COMMAND} -DHARNESS=$<TARGET_FILE:kda-harness> -DDOC=${PROJECT_SOURCE_DIR}/docs/errors.md
                 -DOUT=${CMAKE_CURRENT_BINARY_DIR}/errors.generated.md
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/contract_errors_doc_check.cmake)
set_tests_properties(contract.docs_errors_md_up_to_date PROPERTIES LABELS contract)

# The CLI: `kda-harness validate` (file and stdin; exit 0/1/2) and `kda-harness errors`.
add_test(NAME contract.cli
         COMMAND ${CMAKE_COMMAND} -DHARNESS=$<TARGET_FILE:kda-harness> -DDATA=${CMAKE_CURRENT_SOURCE_DIR}/contract_cli
                 -DCATALOG=${PROJECT_SOURCE_DIR}/contract/error_catalog.json
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/contract_cli -P ${CMAKE_CURRENT_SOURCE_DIR}/contract_cli_check.cmake)
set_tests_properties(contract.cli PROPERTIES LABELS contract)
