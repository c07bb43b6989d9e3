# tileperf progress on captured ctest output (cmake -P): one line per
# finished test, in the order they finished, with [n/N]; a perf test's state
# and key metrics from its result file; colour only when asked for (the
# output is not a terminal here).
#   -DTILEPERF=... -DLOG=<captured ctest output> -DRESULT=<a result of
#   perf.gelu.f16_1024.sm_120> -DWORK=<scratch dir>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/gelu")
file(COPY_FILE "${RESULT}" "${WORK}/gelu/f16_1024.sm_120.result.json")

function(progress out)
  execute_process(COMMAND "${TILEPERF}" progress ${ARGN} INPUT_FILE "${LOG}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  message("--- tileperf progress ${ARGN}\n${text}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "exit ${rc}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(expect text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "output does not match ${regex}")
  endif()
endfunction()

file(STRINGS "${LOG}" finished REGEX "^ *[0-9]+/[0-9]+ Test +#")
list(LENGTH finished n)
progress(plain --results "${WORK}")
string(REGEX MATCHALL "\\[[ 0-9]+/[0-9]+\\]" counters "${plain}")
list(LENGTH counters shown)
if(NOT shown EQUAL n)
  message(FATAL_ERROR "${shown} lines for ${n} finished tests")
endif()
expect("${plain}" "^\\[ 1/15\\] run.start +passed +0.02 s\n")
# From its result file: state and key metrics.
expect("${plain}" "\n\\[ 4/15\\] perf.gelu.f16_1024.sm_120 +regressed +cubin.bytes=16173 [^\n]* sass.mufu=17  0.03 s\n")
# Without one: what ctest said.
expect("${plain}" "\n\\[ 5/15\\] perf.gelu.f16_8192.sm_120 +Failed +0.06 s\n")
expect("${plain}" "\\[15/15\\] ")
string(ASCII 27 esc)
if(plain MATCHES "${esc}")
  message(FATAL_ERROR "colour in output that is not a terminal")
endif()
progress(coloured --colour always)
expect("${coloured}" "\\[ 5/15\\] perf.gelu.f16_8192.sm_120 +${esc}\\[31mFailed")
