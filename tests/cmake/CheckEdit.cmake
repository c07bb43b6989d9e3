# Runs one check of an edited kernel and judges it (cmake -P):
#   cmake -DPATCH=<file> -DRESULT=<result.json> -P CheckEdit.cmake -- <tileperf check ...>
# A mutant must end with exit 3 and each metric of its `expect:` line over its
# limit or named by a broken invariant; a no-op edit (`expect: no change`,
# checked with --exact) must end with exit 0. Update mode is switched off: a
# self-test must never rewrite a real baseline.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/EditVerdict.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/CommandAfterDashes.cmake")
command_after_dashes(command)

edit_header_field(expected "${PATCH}" expect)
if(expected STREQUAL "no;change")
  set(kind noop)
  set(want_exit 0)
else()
  set(kind mutant)
  set(want_exit 3)
endif()
file(REMOVE "${RESULT}")
set(ENV{TILEPERF_UPDATE_BASELINES} "")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
edit_verdict(verdict "${RESULT}" ${kind} "${expected}")
if(NOT rc STREQUAL "${want_exit}" OR NOT (verdict STREQUAL "caught" OR verdict STREQUAL "clean"))
  message(FATAL_ERROR "${kind} check: exit ${rc} (expected ${want_exit}); ${verdict}")
endif()
message("${kind} check: ${verdict}")
