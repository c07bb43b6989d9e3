# The review of a merge request, end to end on a real kernel (cmake -P). The
# branch's baselines are made by `tileperf check --update`; the merge base's
# are the same but for sass.instructions of one test, 20 fewer (the branch
# accepted a regression), and one more test (the branch removed it). The
# report names the accepted regression, the removed baseline, and the result
# that is regressed against the merge base although it passes against the
# branch's own baseline; --expect counts what is missing.
#   -DTILEPERF=... -DTILEIRAS=... -DCUOBJDUMP=... -DBYTECODE=<gelu f16_1024>
#   -DCHECKS=<dir> -DWORK=<scratch dir>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/run/gelu" "${WORK}/head/gelu" "${WORK}/base/gelu")

include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Step.cmake")
function(tileperf want_exit)
  step("tileperf ${ARGN}" "${want_exit}" "" "${TILEPERF}" ${ARGN})
  set(output "${out}" PARENT_SCOPE)
endfunction()

function(check dir arch baselines)
  tileperf(0 check --kernel gelu --config f16_1024 --arch ${arch} --bytecode "${BYTECODE}"
    --work-dir "${WORK}/${dir}" --baseline "${WORK}/${baselines}/gelu/f16_1024.${arch}.json" --checks "${CHECKS}"
    --tileiras "${TILEIRAS}" --cuobjdump "${CUOBJDUMP}" ${ARGN})
endfunction()

# The branch's baselines, then its run against them: both pass.
check(run/gelu sm_120 head --update)
check(run/gelu sm_90 head --update)
check(run/gelu sm_120 head)
check(run/gelu sm_90 head)
# The merge base's: sm_120 with 20 fewer instructions, and an sm_100 baseline.
file(COPY "${WORK}/head/gelu/" DESTINATION "${WORK}/base/gelu")
check(scratch sm_100 base --update)
set(main "${WORK}/base/gelu/f16_1024.sm_120.json")
file(READ "${main}" text)
string(REGEX MATCH "\"sass.instructions\": ([0-9]+)" found "${text}")
set(now "${CMAKE_MATCH_1}")
math(EXPR before "${now} - 20")
string(REPLACE "\"sass.instructions\": ${now}" "\"sass.instructions\": ${before}" text "${text}")
file(WRITE "${main}" "${text}")

function(expect regex)
  if(NOT output MATCHES "${regex}")
    message(FATAL_ERROR "output does not match ${regex}")
  endif()
endfunction()

tileperf(0 report "${WORK}/run" --base-baselines "${WORK}/base" --baselines "${WORK}/head" --checks "${CHECKS}")
expect("^## tileperf: 2 pass\n\n> \\*\\*Review:\\*\\* this merge request changes 2 baseline\\(s\\) \\(1 regressed, 1 removed\\); against the merge base: 1 regressed, 1 pass\n")
expect("### Baselines changed in this merge request: 1 regressed\n\n<details><summary><b>regressed</b> <code>perf.gelu.f16_1024.sm_120</code>: sass.instructions ${before} -> ${now} \\(\\+[0-9.]+%\\)")
expect("baselines removed: `perf.gelu.f16_1024.sm_100`")
expect("### Against the merge base: 1 regressed, 1 pass\n\n<details><summary><b>regressed</b> <code>perf.gelu.f16_1024.sm_120</code>: sass.instructions ${before} -> ${now}")
# Only the run's own section without --base-baselines.
tileperf(0 report "${WORK}/run")
if(output MATCHES "Review|merge base")
  message(FATAL_ERROR "a review without --base-baselines")
endif()
# The HTML page: both sections, each test with its own anchor.
tileperf(0 report "${WORK}/run" --base-baselines "${WORK}/base" --baselines "${WORK}/head" --checks "${CHECKS}"
  --html "${WORK}/report.html")
file(READ "${WORK}/report.html" output)
expect("<section id=\"accepted\">.*id=\"accepted-perf.gelu.f16_1024.sm_120\".*<section id=\"against-base\">.*id=\"base-perf.gelu.f16_1024.sm_120\"")
# Three tests expected, two results: the report says so and exits 9.
tileperf(9 report "${WORK}/run" --expect 3)
expect("> \\*\\*incomplete: 2 of 3 expected results found \\(1 missing\\)")
expect("tileperf: report incomplete: 2 of 3")
tileperf(0 report "${WORK}/run" --expect 2)
