# A library's bump, tileperf's own upgrade, an estimate against its counts
# and a signature change that moves nothing, end to end on a real kernel
# (cmake -P). The gelu configuration's dump record is given a library
# ("gelulib 2.0"), a baseline is made of its own measurement, and each case
# is that baseline with its provenance or metrics edited the way the case
# would have left them:
#   library   the library was 1.0 and the kernel had 7 more instructions:
#             improved, and `tileperf summary` shows the bump once with one
#             command that works from any folder of the project
#   model     another version of the model estimated 1.5x the time, every
#             count the same: model changed (exit 12), never improved
#   disagree  the estimate rose by half while the instructions fell: the
#             message says the estimate and the counts disagree
#   signature the baseline's signature had one more field, nothing moved:
#             one line, and the summary's one command
#   -DTILEPERF=... -DTILEIRAS=... -DCUOBJDUMP=... -DBYTECODE=<gelu f16_1024>
#   -DCHECKS=<dir> -DWORK=<scratch dir>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/in" "${WORK}/below")
get_filename_component(name "${BYTECODE}" NAME)
file(COPY "${BYTECODE}" DESTINATION "${WORK}/in")
file(READ "${BYTECODE}.json" record)
string(JSON record SET "${record}" library "{\"gelulib\": \"2.0\"}")
file(WRITE "${WORK}/in/${name}.json" "${record}")

include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Step.cmake")
set(ENV{TILEPERF_UPDATE_BASELINES} "")
set(check "${TILEPERF}" check --kernel gelu --config f16_1024 --arch sm_120 --bytecode "${WORK}/in/${name}"
  --checks "${CHECKS}" --tileiras "${TILEIRAS}" --cuobjdump "${CUOBJDUMP}" --update-command "UPDATE")

step("a baseline of the measurement" 0 "perf.gelu.f16_1024.sm_120: created"
  ${check} --work-dir "${WORK}/made/work" --baseline "${WORK}/made/f16_1024.sm_120.json" --update)
file(READ "${WORK}/made/f16_1024.sm_120.json" made)
string(JSON library GET "${made}" library gelulib)
string(JSON model GET "${made}" model)
string(JSON instructions GET "${made}" metrics sass.instructions)
string(JSON time GET "${made}" metrics cost.time_ns)
if(NOT library STREQUAL "2.0" OR model STREQUAL "")
  message(FATAL_ERROR "the baseline does not record the library and the model:\n${made}")
endif()
math(EXPR more "${instructions} + 7")

# case(<name> <json member path and value>...): the baseline of the case,
# with each member set, its run record and the check's command in `case_check`.
function(case name)
  set(text "${made}")
  while(ARGN)
    list(POP_FRONT ARGN member value)
    string(REPLACE "/" ";" member "${member}")
    string(JSON text SET "${text}" ${member} "${value}")
  endwhile()
  file(MAKE_DIRECTORY "${WORK}/${name}/work")
  file(WRITE "${WORK}/${name}/f16_1024.sm_120.json" "${text}")
  file(COPY "${WORK}/made/f16_1024.sm_120.detail.json" DESTINATION "${WORK}/${name}")
  execute_process(COMMAND "${TILEPERF}" run-start --work-dir "${WORK}/${name}/work" --project-dir "${WORK}"
    --build-dir "${WORK}/${name}/build" --update-command "cmake --build ${name}/build --target update_baselines"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run-start failed")
  endif()
  set(case_check ${check} --work-dir "${WORK}/${name}/work" --baseline "${WORK}/${name}/f16_1024.sm_120.json"
    --run-file "${WORK}/${name}/work/run.json" PARENT_SCOPE)
endfunction()

case(library library/gelulib "\"1.0\"" metrics/sass.instructions "${more}")
step("a check of the new release" 0 "perf.gelu.f16_1024.sm_120: improved" ${case_check})
# The filter of exactly the test: TILEPERF_FILTER='^perf\.(gelu\.f16_1024\.sm_120)$'.
set(filter "TILEPERF_FILTER='\\^perf\\\\\\.\\(gelu\\\\\\.f16_1024\\\\\\.sm_120\\)\\$' ")
set(bump "gelulib 1\\.0 -> 2\\.0: 1 test\\(s\\)\n  code changed \\(the counts moved\\): 1: 1 improved\n  accept the whole bump with: ${filter}")
step("the bump from the project's folder" 0 "${bump}cmake --build library/build --target update_baselines\n"
  "${CMAKE_COMMAND}" -E chdir "${WORK}" "${TILEPERF}" summary "${WORK}/library/work")
step("the bump from above the project" 0 "${bump}cmake --build [^\n/]+/library/build --target update_baselines\n"
  "${CMAKE_COMMAND}" -E chdir "${WORK}/.." "${TILEPERF}" summary "${WORK}/library/work")
step("the bump from a folder of the project" 0 "${bump}cmake --build /[^\n]+/library/build --target update_baselines\n"
  "${CMAKE_COMMAND}" -E chdir "${WORK}/below" "${TILEPERF}" summary "${WORK}/library/work")
step("accepting the release" 0 "perf.gelu.f16_1024.sm_120: updated [^\n]*\n(  launch: [^\n]*\n)?  1 metric\\(s\\) moved; library: gelulib 1\\.0 -> 2\\.0\n"
  ${case_check} --update)
step("after the release is accepted" 0 "perf.gelu.f16_1024.sm_120: pass" ${case_check})

case(model model "\"0\"" metrics/cost.time_ns "${time}0")
step("an estimate the model alone moved" 12
  "perf.gelu.f16_1024.sm_120: model changed [^\n]*\n(  launch: [^\n]*\n)?  only the model's metrics moved, under another version of tileperf's model \\(0 -> ${model}\\): cost.time_ns -90\\.0%; every count is the baseline's; accept the model's estimates with: UPDATE\n"
  ${case_check})
step("the model's bump" 0
  "tileperf's model 0 -> ${model}: 1 test\\(s\\)\n  the estimate alone moved \\(cost.\\*, loop.\\*, launch.\\*\\): 1: 1 model changed\n  accept the whole bump with: ${filter}cmake --build model/build --target update_baselines\n"
  "${CMAKE_COMMAND}" -E chdir "${WORK}" "${TILEPERF}" summary "${WORK}/model/work")

math(EXPR half "${time} * 2 / 3")
case(disagree metrics/cost.time_ns "${half}" metrics/sass.instructions "${more}")
step("an estimate against its counts" 3
  "perf.gelu.f16_1024.sm_120: regressed [^\n]*\n(  launch: [^\n]*\n)?  the estimate and the counts disagree: cost.time_ns \\+(49\\.9|50\\.0)% while sass.instructions -[0-9.]+%; none of the model's inputs the baseline records moved [^\n]*: 1 metric\\(s\\) over the limit; if intended, accept with: UPDATE\n"
  ${case_check})

case(signature "signature/parameters[9].kind" "\"ScalarConstraint\"")
step("a signature change that moves nothing" 7
  "perf.gelu.f16_1024.sm_120: signature changed [^\n]*\n(  launch: [^\n]*\n)?  the signature changed \\(parameters\\[9\\]\\.kind: ScalarConstraint -> \\(none\\)\\) and no gated metric or opcode moved: the same code; accept with: UPDATE\n"
  ${case_check})
step("the summary's one command" 0
  "signature changed and no gated metric or opcode moved \\(the same code\\) in 1 test\\(s\\): perf.gelu.f16_1024.sm_120\n  accept them all with: ${filter}cmake --build signature/build --target update_baselines\n"
  "${CMAKE_COMMAND}" -E chdir "${WORK}" "${TILEPERF}" summary "${WORK}/signature/work")
