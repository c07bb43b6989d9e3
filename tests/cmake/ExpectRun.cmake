# Runs a command and checks its exit code and output (cmake -P).
#
#   cmake -DEXPECT_EXIT=<code> [-DEXPECT_OUTPUT=<regex>] [-DREJECT_OUTPUT=<regex>]
#         -P ExpectRun.cmake -- <command> [args...]
#
# CMake's script mode drops some short options even after `--` (-N, -L):
# give the command long options. EXPECT_OUTPUT must match, REJECT_OUTPUT must not match, the combined stdout
# and stderr; with -DNORMALIZE_SPACE=ON every run of white space in the output
# (CMake wraps its messages) is first replaced by one space. Update mode is switched off for the command: a self-test must
# never rewrite a real baseline.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED EXPECT_EXIT)
  message(FATAL_ERROR "ExpectRun.cmake: -DEXPECT_EXIT=<code> is required")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/CommandAfterDashes.cmake")
command_after_dashes(command)

set(ENV{TILEPERF_UPDATE_BASELINES} "")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NORMALIZE_SPACE)
  string(REGEX REPLACE "[ \t\r\n]+" " " out "${out}")
endif()
set(failures "")
if(NOT rc STREQUAL "${EXPECT_EXIT}")
  string(APPEND failures "exit code ${rc}, expected ${EXPECT_EXIT}\n")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT out MATCHES "${EXPECT_OUTPUT}")
  string(APPEND failures "output does not match: ${EXPECT_OUTPUT}\n")
endif()
if(DEFINED REJECT_OUTPUT AND out MATCHES "${REJECT_OUTPUT}")
  string(APPEND failures "output matches what it must not: ${REJECT_OUTPUT}\n")
endif()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message("ok: exit ${rc} as expected")
