# Tests of the engine (engine/): rounding profiles and their emulations, the suites' measured
# sensitivity, envelopes, plugin loading, refusals, the one check that a refused call wrote
# nothing, the messages of failures, the sample space under every suite's limits and the
# catalog's message renderer, the guard regions of host backends, a case line's one way in (case_line.hpp).
set(kda_engine_suites engine_profile engine_backend engine_messages engine_sample_space engine_host_guards engine_sensitivity
  engine_nothing_written engine_async_step engine_kda_view engine_invalid_rows engine_shrink engine_operator_words
  engine_case_line)
foreach(suite IN LISTS kda_engine_suites)
  add_executable(${suite}_test ${suite}_test.cpp)
  target_link_libraries(${suite}_test PRIVATE kda_engine kda_project_options GTest::gtest_main)
  gtest_add_tests(TARGET ${suite}_test TEST_LIST ${suite}_cases)
  set_tests_properties(${${suite}_cases} PROPERTIES LABELS "engine")
endforeach()
target_compile_definitions(engine_backend_test PRIVATE
  KDA_CPU_EXAMPLE_PLUGIN="$<TARGET_FILE:kda_cpu_example>")
add_dependencies(engine_backend_test kda_cpu_example)

# The driver's phase timers (engine/reports/phase_times.hpp): with KDA_PHASE_TIMES set, a process
# that ran a case prints its table at exit; without it, nothing.
set(kda_phase_case "B=2 H=1 HV=2 K=8 V=8 L=3 slots=3 steps=4 seed=3")
add_test(NAME engine.phase_times_printed COMMAND kda-harness case "${kda_phase_case}")
set_tests_properties(engine.phase_times_printed PROPERTIES LABELS "engine" ENVIRONMENT "KDA_PHASE_TIMES=1"
  PASS_REGULAR_EXPRESSION "phase times \\(1 cases, 4 steps; wall time")
add_test(NAME engine.phase_times_off_by_default COMMAND kda-harness case "${kda_phase_case}")
set_tests_properties(engine.phase_times_off_by_default PROPERTIES LABELS "engine" ENVIRONMENT "KDA_PHASE_TIMES=0"
  FAIL_REGULAR_EXPRESSION "phase times")
add_test(NAME engine.phase_times_cpu COMMAND kda-harness case "${kda_phase_case}")
set_tests_properties(engine.phase_times_cpu PROPERTIES LABELS "engine" ENVIRONMENT "KDA_PHASE_TIMES=cpu"
  PASS_REGULAR_EXPRESSION "phase times \\(1 cases, 4 steps; CPU time")
