# Results of an earlier run never mix in (cmake -P): a folder holds the
# results of a run; a new run (run.json) rewrites two of them. `summary` and
# `report` count the two, say how many results of earlier runs were left
# out, and with --all-runs show them all, the others flagged. A shard folder with its
# own run.json is judged by its own record.
#   -DTILEPERF=... -DRESULTS=<folder of result files> -DWORK=<scratch dir>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/run" "${WORK}/shard")

include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Step.cmake")
function(run want_regex)
  step("tileperf ${ARGN}" 0 "${want_regex}" "${TILEPERF}" ${ARGN})
endfunction()

file(GLOB results "${RESULTS}/*.result.json")
file(COPY ${results} DESTINATION "${WORK}/run")
list(LENGTH results all)
math(EXPR earlier "${all} - 2")
math(EXPR earlier_sharded "${all} - 3")
set(ENV{TILEPERF_RUN_ID} "run-2")
run("run run-2: " run-start --out "${WORK}/run/run.json")
# This run wrote gelu and one softmax result: they carry its id.
foreach(name IN ITEMS gelu.f16_1024.sm_120 softmax.f16_1024.sm_120)
  file(READ "${WORK}/run/${name}.result.json" text)
  string(REGEX REPLACE "^{" "{\n  \"run\": \"run-2\"," text "${text}")
  file(WRITE "${WORK}/run/${name}.result.json" "${text}")
endforeach()
# One result of an older run that does carry an id.
file(READ "${WORK}/run/softmax.f16_4096.sm_90.result.json" text)
string(REGEX REPLACE "^{" "{\n  \"run\": \"run-1\"," text "${text}")
file(WRITE "${WORK}/run/softmax.f16_4096.sm_90.result.json" "${text}")

run("^perf.gelu.f16_1024.sm_120 [^\n]*\n(    [^\n]*\n)*perf.softmax.f16_1024.sm_120 [^\n]*\n(    [^\n]*\n)*2 tests: [^\n]*\n${earlier} result\\(s\\) of earlier runs left out"
  summary "${WORK}/run")
run("${all} tests: [^\n]*\n${earlier} result\\(s\\) are of earlier runs"
  summary "${WORK}/run" --all-runs)
run("perf.softmax.f16_4096.sm_90 [^\n]*\\(earlier run\\)" summary "${WORK}/run" --all-runs)
run("^## tileperf: [^\n]*\n\n> ${earlier} result\\(s\\) of earlier runs left out" report "${WORK}/run")
run("" report "${WORK}/run" --json "${WORK}/report.json")
file(READ "${WORK}/report.json" json)
if(NOT json MATCHES "\"earlier_runs_left_out\": ${earlier}")
  message(FATAL_ERROR "report.json does not count the results of earlier runs")
endif()

# A shard's folder with its own record: its result is of its own run.
file(COPY "${RESULTS}/matmul.f16_128x128x64.sm_90.result.json" DESTINATION "${WORK}/shard")
file(REMOVE "${WORK}/run/matmul.f16_128x128x64.sm_90.result.json")
set(ENV{TILEPERF_RUN_ID} "shard-7")
run("run shard-7: " run-start --out "${WORK}/shard/run.json")
file(READ "${WORK}/shard/matmul.f16_128x128x64.sm_90.result.json" text)
string(REGEX REPLACE "^{" "{\n  \"run\": \"shard-7\"," text "${text}")
file(WRITE "${WORK}/shard/matmul.f16_128x128x64.sm_90.result.json" "${text}")
run("3 tests: [^\n]*\n${earlier_sharded} result\\(s\\) of earlier runs left out" summary "${WORK}/run" "${WORK}/shard")

# A run id that is not a plain name is refused.
set(ENV{TILEPERF_RUN_ID} "a b")
execute_process(COMMAND "${TILEPERF}" run-start --out "${WORK}/bad.json" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "TILEPERF_RUN_ID 'a b' may hold only")
  message(FATAL_ERROR "a bad TILEPERF_RUN_ID: exit ${rc}: ${err}")
endif()
