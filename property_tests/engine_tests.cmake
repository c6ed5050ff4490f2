# Tests of the engine (engine/): rounding profiles, envelopes, plugin loading, refusals, the
# messages of failures, the sample space under every suite's limits and the catalog's message
# renderer, the guard regions of host backends.
set(kda_engine_suites engine_profile engine_backend engine_messages engine_sample_space engine_host_guards)
foreach(suite IN LISTS kda_engine_suites)
  add_executable(${suite}_test ${suite}_test.cpp)
  target_link_libraries(${suite}_test PRIVATE kda_engine kda_project_options GTest::gtest_main)
  gtest_add_tests(TARGET ${suite}_test TEST_LIST ${suite}_cases)
  set_tests_properties(${${suite}_cases} PROPERTIES LABELS "engine")
endforeach()
target_compile_definitions(engine_backend_test PRIVATE
  KDA_CPU_EXAMPLE_PLUGIN="$<TARGET_FILE:kda_cpu_example>")
add_dependencies(engine_backend_test kda_cpu_example)
