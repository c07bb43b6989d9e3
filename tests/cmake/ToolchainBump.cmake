# A toolchain bump, end to end on a real kernel (cmake -P): a baseline that
# records another tileiras release is never compared, but reported as
# "toolchain changed" naming both releases; update mode rewrites it and says
# what moved; the next check passes.
#   -DTILEPERF=... -DTILEIRAS=... -DCUOBJDUMP=... -DBYTECODE=<gelu f16_1024>
#   -DBASELINE=<its committed baseline> -DCHECKS=<dir> -DWORK=<scratch dir>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(READ "${BASELINE}" text)
string(REPLACE "\"tileiras\": \"13.4.92\"" "\"tileiras\": \"13.4.91\"" bumped "${text}")
string(REGEX REPLACE "\"sass.instructions\": ([0-9]+)" "\"sass.instructions\": 150" bumped "${bumped}")
if(bumped STREQUAL text)
  message(FATAL_ERROR "${BASELINE} does not record tileiras 13.4.92: update this test")
endif()
set(baseline "${WORK}/f16_1024.sm_120.json")
file(WRITE "${baseline}" "${bumped}")
set(ENV{TILEPERF_UPDATE_BASELINES} "")
set(check "${TILEPERF}" check --kernel gelu --config f16_1024 --arch sm_120
  --bytecode "${BYTECODE}" --work-dir "${WORK}" --baseline "${baseline}" --checks "${CHECKS}"
  --tileiras "${TILEIRAS}" --cuobjdump "${CUOBJDUMP}" --update-command "UPDATE")

function(step name want_exit regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("--- ${name}\n${out}")
  if(NOT rc STREQUAL "${want_exit}")
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${want_exit}")
  endif()
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "${name}: output does not match ${regex}")
  endif()
endfunction()

step("check against the old toolchain's baseline" 6
  "perf.gelu.f16_1024.sm_120: toolchain changed [^\n]*\n  baseline made with [^\n]*tileiras 13\\.4\\.91[^\n]*; now [^\n]*tileiras 13\\.4\\.92[^\n]*; review and update with: UPDATE"
  ${check})
step("update" 0
  "perf.gelu.f16_1024.sm_120: updated [^\n]*\n  1 metric\\(s\\) moved; toolchain was: [^\n]*tileiras 13\\.4\\.91[^\n]*; now: [^\n]*tileiras 13\\.4\\.92[^\n]*\n.*sass.instructions +150 +143 +-7"
  ${check} --update)
step("summary of the update" 0
  "perf.gelu.f16_1024.sm_120 +updated [^\n]*\n    1 metric\\(s\\) moved; toolchain was: [^\n]*\n    sass.instructions: 150 -> 143 \\(-7, -4.7%, limit \\+1.5, improved\\)"
  "${TILEPERF}" summary "${WORK}")
step("check after the update" 0 "perf.gelu.f16_1024.sm_120: pass" ${check})
file(READ "${baseline}" updated)
if(NOT updated MATCHES "\"tileiras\": \"13\\.4\\.92\"")
  message(FATAL_ERROR "the updated baseline does not record the new tileiras")
endif()
