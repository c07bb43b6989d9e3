# Script behind the `update_baselines` target (cmake -P). Reruns the perf
# tests in update mode, each rewriting its baseline atomically, then prints
# one line per test saying what happened (created, updated, unchanged) and
# writes update-summary.md/.html: what moved, test by test, for the review.
#
# Input: CTEST_COMMAND, BUILD_DIR, TILEPERF, WORK_DIR, SUMMARY_MD and
# SUMMARY_HTML (-D; the summaries' paths, from the path table), and from the
# environment TILEPERF_FILTER (ctest -R regex) and TILEPERF_LABEL (ctest -L).
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS CTEST_COMMAND BUILD_DIR TILEPERF WORK_DIR SUMMARY_MD SUMMARY_HTML)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TileperfUpdateBaselines.cmake: -D${var}=... is required")
  endif()
endforeach()

set(args -L "^perf$" --output-on-failure)
if(DEFINED ENV{TILEPERF_FILTER} AND NOT "$ENV{TILEPERF_FILTER}" STREQUAL "")
  list(APPEND args -R "$ENV{TILEPERF_FILTER}")
endif()
if(DEFINED ENV{TILEPERF_LABEL} AND NOT "$ENV{TILEPERF_LABEL}" STREQUAL "")
  list(APPEND args -L "$ENV{TILEPERF_LABEL}")
endif()
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)

# Results of an earlier run would mix with this one's in the summary.
file(GLOB_RECURSE stale "${WORK_DIR}/*.result.json")
if(stale)
  file(REMOVE ${stale})
endif()

set(ENV{TILEPERF_UPDATE_BASELINES} 1)
execute_process(COMMAND "${CTEST_COMMAND}" ${args} -j ${cores} --progress
  WORKING_DIRECTORY "${BUILD_DIR}" RESULT_VARIABLE ctest_rc)
if(EXISTS "${WORK_DIR}")
  execute_process(COMMAND "${TILEPERF}" summary "${WORK_DIR}")
  # For the review of the baseline diff: what moved, test by test.
  execute_process(COMMAND "${TILEPERF}" report "${WORK_DIR}"
    --markdown "${SUMMARY_MD}" --html "${SUMMARY_HTML}")
  message("what moved: ${SUMMARY_MD} (and ${SUMMARY_HTML})")
endif()
if(NOT ctest_rc EQUAL 0)
  message(FATAL_ERROR "update_baselines: some tests could not write their baseline (see above)")
endif()
