# The CUDA kernel's suites (kernels/). They build wherever the kernel builds (CI included)
# and skip with a visible reason where no GPU is present. Each GPU test takes one GPU from
# CTest's resource pool (RESOURCE_GROUPS "gpus:1"): with a resource spec from
# scripts/gpu/resource-spec.sh, `ctest --resource-spec-file spec.json -j N` spreads them
# over every GPU of the host, and each test selects the GPU it was given.
if(NOT KDA_ENABLE_CUDA)
  return()
endif()

add_library(kda_kernel_testing STATIC kernel_gpu_env.cpp)
target_link_libraries(kda_kernel_testing PUBLIC kda_engine GTest::gtest rapidcheck)
target_include_directories(kda_kernel_testing PUBLIC ${PROJECT_SOURCE_DIR})

# gtest_add_tests (source scan at configure time) rather than gtest_discover_tests: the
# generated CTestTestfile then holds plain add_test lines, so ctest also runs on the GPU
# machine, whose CMake lives elsewhere. On the CPU-only CI the GPU tests skip.
set(kda_kernel_suites kernel_vs_reference kernel_ground_truth kernel_adversarial kernel_graph kernel_launcher
    kernel_mirror kernel_gdn kernel_gdn_circular)
foreach(suite IN LISTS kda_kernel_suites)
  add_executable(${suite}_test ${suite}_test.cpp)
  target_link_libraries(${suite}_test PRIVATE kda_kernel_testing kda_project_options GTest::gtest_main)
  # Binaries travel to the GPU machine: no shared libstdc++/libgcc, only libc/libm.
  target_link_options(${suite}_test PRIVATE -static-libstdc++ -static-libgcc)
  gtest_add_tests(TARGET ${suite}_test TEST_LIST ${suite}_cases)
  # A test that GTEST_SKIP()s (no GPU) is reported by ctest as skipped, not passed.
  set_tests_properties(${${suite}_cases} PROPERTIES RESOURCE_GROUPS "gpus:1" LABELS "gpu;kernel"
                       SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endforeach()
# The checking machinery itself, on the CPU (no GPU, no resource group): runs in CI.
add_executable(kernel_harness_test kernel_harness_test.cpp)
target_link_libraries(kernel_harness_test PRIVATE kda_kernel_testing kda_project_options GTest::gtest_main)
gtest_add_tests(TARGET kernel_harness_test TEST_LIST kernel_harness_cases)
set_tests_properties(${kernel_harness_cases} PROPERTIES LABELS "kernel")
list(APPEND kda_kernel_suites kernel_harness)

list(TRANSFORM kda_kernel_suites APPEND _test OUTPUT_VARIABLE kda_kernel_test_targets)
add_custom_target(kernel_tests DEPENDS ${kda_kernel_test_targets})

# The backend suites of every operator of the build (KDA_OPERATORS, operators/CMakeLists.txt)
# on our kernel (kda-harness check --op; the kernel of the plain packed decode is ReplaySSM's
# L = 1 path with beta kept in float32). An operator our kernel does not serve (its folder
# declares no kda_cuda_kernel) is refused by name, and its test skipped.
foreach(op IN LISTS KDA_OPERATORS)
  add_test(NAME kernel.check_${op}
           COMMAND $<TARGET_FILE:kda-harness> check --op ${op} --backend cuda --no-progress --scale 0.25
                   --suites kernel,kernel-truth,golden-kernel,envelope)
  set_tests_properties(kernel.check_${op} PROPERTIES RESOURCE_GROUPS "gpus:1" LABELS "gpu;kernel"
                       SKIP_REGULAR_EXPRESSION "--backend cuda, but;no CUDA kernel for ${op}")
endforeach()
