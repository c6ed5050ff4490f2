# Tests of the reference area (reference/, cases/): the key property and the other
# properties of the reference, plus the case generator's own tests. RapidCheck runs with a fixed
# seed under ctest (reproducible CI); set RC_PARAMS="seed=N" and KDA_REFERENCE_CASES=M to
# explore further by hand.
set(kda_reference_suites
  reference_key_property
  reference_operators_key_property
  reference_fla_packed_decode
  reference_fla_gdn_plain
  reference_properties
  reference_footprint
  reference_cases
  reference_regressions
)
foreach(suite IN LISTS kda_reference_suites)
  add_executable(${suite}_test ${suite}_test.cpp)
  target_link_libraries(${suite}_test PRIVATE kda_engine kda_reference kda_cases kda_project_options rapidcheck GTest::gtest_main)
  target_include_directories(${suite}_test PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_add_tests(TARGET ${suite}_test TEST_LIST ${suite}_cases)
  set_tests_properties(${${suite}_cases} PROPERTIES LABELS "reference" ENVIRONMENT "RC_PARAMS=seed=20240603")
endforeach()
list(TRANSFORM kda_reference_suites APPEND _test OUTPUT_VARIABLE kda_reference_test_targets)
add_custom_target(reference_tests DEPENDS ${kda_reference_test_targets})
