# The packaging tests (label packaging) besides the install one (install.cmake): every shipped
# configuration configures, and the wheel builds and works in a new virtual environment as the
# build does (its command line compared with this build's kda-harness).
add_test(NAME packaging.configurations
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${PROJECT_SOURCE_DIR} -DWORK=${CMAKE_BINARY_DIR}/packaging-configurations
                 -P ${CMAKE_CURRENT_LIST_DIR}/configurations.cmake)
set_tests_properties(packaging.configurations PROPERTIES LABELS packaging)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # wheel-build: the folder scripts/setup-python.sh builds the wheel in, so an unchanged
  # checkout's objects are not compiled twice.
  add_test(NAME packaging.wheel
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/wheel_check.sh ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_BINARY_DIR}/packaging-wheel ${CMAKE_BINARY_DIR}/wheel-build ${PROJECT_VERSION}
                   $<TARGET_FILE:kda-harness>)
  set_tests_properties(packaging.wheel PROPERTIES LABELS packaging TIMEOUT 1800)
endif()
