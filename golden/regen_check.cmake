# ctest golden.regen_deterministic: regenerate the golden set twice into fresh folders and
# require (1) the two runs to be byte-identical, file for file, manifest included, and (2)
# both to equal the committed set. On a difference it prints what moved (regen --dry-run
# against the committed files).
# -DHARNESS=kda-harness -DGOLDEN=<source>/golden -DWORK=<scratch folder>
file(REMOVE_RECURSE "${WORK}")
foreach(run a b)
  execute_process(COMMAND "${HARNESS}" golden regen --dir "${WORK}/${run}/cases" --manifest "${WORK}/${run}/manifest.json"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "golden regen (${run}) failed (${rc}):\n${out}${err}")
  endif()
endforeach()

file(GLOB a_files RELATIVE "${WORK}/a/cases" "${WORK}/a/cases/*.safetensors")
file(GLOB b_files RELATIVE "${WORK}/b/cases" "${WORK}/b/cases/*.safetensors")
file(GLOB committed RELATIVE "${GOLDEN}/cases" "${GOLDEN}/cases/*.safetensors")
list(SORT a_files)
list(SORT b_files)
list(SORT committed)
if(NOT a_files STREQUAL b_files)
  message(FATAL_ERROR "two regenerations produced different file lists")
endif()
list(LENGTH a_files count)
if(count EQUAL 0)
  message(FATAL_ERROR "golden regen produced no case files")
endif()

# Every case file and the manifest: identical across the two runs, and equal to the committed set.
set(paths manifest.json)
foreach(f IN LISTS a_files)
  list(APPEND paths "cases/${f}")
endforeach()
set(differ "")
foreach(f IN LISTS paths)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/a/${f}" "${WORK}/b/${f}" RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    message(FATAL_ERROR "not deterministic: two regenerations of ${f} differ")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/a/${f}" "${GOLDEN}/${f}" RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    list(APPEND differ "${f}")
  endif()
endforeach()
if(NOT a_files STREQUAL committed)
  list(APPEND differ "(file list)")
endif()

if(differ)
  execute_process(COMMAND "${HARNESS}" golden regen --dry-run --dir "${GOLDEN}/cases" --manifest "${GOLDEN}/manifest.json"
                  OUTPUT_VARIABLE moved ERROR_VARIABLE err)
  message(FATAL_ERROR "the committed golden set differs from a regeneration: ${differ}\n${moved}${err}\n"
                      "If the change is intended, run `kda-harness golden regen` and commit golden/.")
endif()
message(STATUS "golden regen: ${count} case files and the manifest, twice byte-identical and equal to the committed set")
