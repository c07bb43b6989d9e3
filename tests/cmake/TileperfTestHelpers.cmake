# What the tests of every feature folder share (included by tests/CMakeLists.txt).
cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH TILEPERF_TESTS_DIR)
# cmake -P ExpectRun.cmake: a command's exit code and output (see its header).
set(TILEPERF_EXPECT_RUN "${CMAKE_CURRENT_LIST_DIR}/ExpectRun.cmake")
# The folder the self-tests work in (the edits' copies of kernels and their
# results, the command-line tests' files).
set(TILEPERF_SELFTEST_DIR "${CMAKE_BINARY_DIR}/tileperf-selftest")
# The captured tool output the command-line tests read, and their work folder.
set(_fixtures "${TILEPERF_TESTS_DIR}/fixtures/13.4.92")
set(_cli_work "${TILEPERF_SELFTEST_DIR}/cli")
# Metrics files of the gelu test: a baseline, and its regressed and improved versions.
set(_metrics "${TILEPERF_TESTS_DIR}/compare")

# update_golden regenerates every expected output the tests compare with
# (each folder adds its own update_golden_<set> to it); review the diff, then
# commit. Captured output is regenerated apart (update_golden_fixtures,
# update_golden_dump_record).
add_custom_target(update_golden)
if(TARGET update_docs)
  add_dependencies(update_golden update_docs)
endif()

# tileperf_script_steps(<prefix> <script> <label> <timeout> <step>...): a test
# <prefix>.<step> per step, each running `<script> <step>` with this build
# (TILEPERF_BUILD), the source (TILEPERF_SOURCE), the Python (TILEPERF_PYTHON)
# and WORK=<the self-test folder>/<name> in its environment, one at a time
# (RESOURCE_LOCK tileperf.<name>); the first step sets up the fixture
# tileperf.<name> that the others require. <name> is the prefix's last part.
function(tileperf_script_steps prefix script label timeout first)
  string(REGEX REPLACE ".*[.]" "" name "${prefix}")
  foreach(step IN ITEMS ${first} ${ARGN})
    add_test(NAME ${prefix}.${step}
      COMMAND "${CMAKE_COMMAND}" -E env "TILEPERF_BUILD=${PROJECT_BINARY_DIR}"
        "TILEPERF_SOURCE=${PROJECT_SOURCE_DIR}" "TILEPERF_PYTHON=${TILEPERF_PYTHON}"
        "WORK=${TILEPERF_SELFTEST_DIR}/${name}" "${script}" ${step})
    set_tests_properties(${prefix}.${step} PROPERTIES
      LABELS "selftest;${label}" RESOURCE_LOCK tileperf.${name} TIMEOUT ${timeout})
    if(step STREQUAL first)
      set_tests_properties(${prefix}.${step} PROPERTIES FIXTURES_SETUP tileperf.${name})
    else()
      set_tests_properties(${prefix}.${step} PROPERTIES FIXTURES_REQUIRED tileperf.${name})
    endif()
  endforeach()
endfunction()

# tileperf_cli_test(<name> <exit> <output-regex> <tileperf args...>)
function(tileperf_cli_test name exit regex)
  add_test(NAME "cli.${name}"
    COMMAND "${CMAKE_COMMAND}" "-DEXPECT_EXIT=${exit}" "-DEXPECT_OUTPUT=${regex}"
      -P "${TILEPERF_EXPECT_RUN}" -- $<TARGET_FILE:tileperf> ${ARGN})
  set_tests_properties("cli.${name}" PROPERTIES LABELS "selftest;cli")
endfunction()
