# A toolchain bump, end to end on a real kernel (cmake -P): a baseline that
# records another tileiras release never passes, but is reported as
# "toolchain changed" naming both releases, with the metrics compared under
# the usual policies as a preview and nothing written; `tileperf summary`
# says it in one block with one command, `tileperf preview` gives the totals
# per metric and the Markdown; update mode rewrites the baseline and says what
# moved; the next check passes. The old baseline is made from the current one
# (its tileiras release renamed to 0.0.1, 7 more instructions and one register
# fewer), so the test holds for any release.
#   -DTILEPERF=... -DTILEIRAS=... -DCUOBJDUMP=... -DBYTECODE=<gelu f16_1024>
#   -DBASELINE=<its committed baseline> -DCHECKS=<dir> -DWORK=<scratch dir>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(READ "${BASELINE}" text)
string(REGEX MATCH "\"tileiras\": \"([^\"]+)\"" found "${text}")
set(current "${CMAKE_MATCH_1}")
string(REPLACE "." "\\." current_re "${current}")
string(REPLACE "\"tileiras\": \"${current}\"" "\"tileiras\": \"0.0.1\"" bumped "${text}")
# ... and 7 more instructions than the current one makes.
string(REGEX MATCH "\"sass.instructions\": ([0-9]+)" found_count "${text}")
set(now "${CMAKE_MATCH_1}")
math(EXPR old "${now} + 7")
string(REGEX REPLACE "\"sass.instructions\": ([0-9]+)" "\"sass.instructions\": ${old}" bumped "${bumped}")
# ... and one register fewer: under the new toolchain, regs regresses.
string(REGEX MATCH "\"regs\": ([0-9]+)" found_regs "${text}")
set(regs_now "${CMAKE_MATCH_1}")
math(EXPR regs_old "${regs_now} - 1")
string(REGEX REPLACE "\"regs\": ([0-9]+)" "\"regs\": ${regs_old}" bumped "${bumped}")
if(NOT found OR NOT found_count OR NOT found_regs OR bumped STREQUAL text)
  message(FATAL_ERROR "${BASELINE} records no tileiras release")
endif()
set(baseline "${WORK}/f16_1024.sm_120.json")
file(WRITE "${baseline}" "${bumped}")
# The info-level detail the baseline names by file name and digest.
string(REGEX REPLACE "\\.json$" ".detail.json" detail "${BASELINE}")
if(EXISTS "${detail}")
  file(COPY "${detail}" DESTINATION "${WORK}")
endif()
set(ENV{TILEPERF_UPDATE_BASELINES} "")
set(check "${TILEPERF}" check --kernel gelu --config f16_1024 --arch sm_120
  --bytecode "${BYTECODE}" --work-dir "${WORK}" --baseline "${baseline}" --checks "${CHECKS}"
  --tileiras "${TILEIRAS}" --cuobjdump "${CUOBJDUMP}" --update-command "UPDATE")

include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Step.cmake")

step("check against the old toolchain's baseline" 6
  "perf.gelu.f16_1024.sm_120: toolchain changed [^\n]*\n(  launch: [^\n]*\n)?  the baseline was made with another toolchain \\(tileiras 0\\.0\\.1 -> ${current_re}\\); compared under the new one, nothing written: 1 metric\\(s\\) over the limit, 1 improved, 0 invariant\\(s\\) broken; review and update with: UPDATE\n.*regs +${regs_old} +${regs_now} +\\+1 .*REGRESSED.*sass.instructions +${old} +${now} +-7 .*improved"
  ${check})
file(READ "${baseline}" after_check)
if(NOT after_check STREQUAL bumped)
  message(FATAL_ERROR "a check under another toolchain rewrote the baseline")
endif()
step("summary of the bump" 0
  "perf.gelu.f16_1024.sm_120 +toolchain changed [^\n]*\n1 tests: 1 toolchain changed\ntoolchain changed in 1 test\\(s\\) \\(tileiras 0\\.0\\.1 -> ${current_re}\\); compared under the usual policies, nothing written: 1 would regress, 0 would improve, 0 within limits\n  per metric and per test: tileperf preview [^\n]+ --markdown preview.md\n  accept them all with: cmake --build <build-dir> --target update_baselines\n"
  "${TILEPERF}" summary "${WORK}")
step("preview of the bump" 3
  "1 would regress, 0 would improve, 0 within limits\n +metric +regressed +improved +ok +total delta +worst regression\n +regs +1 +0 +0 +\\+1 +perf.gelu.f16_1024.sm_120 ${regs_old} -> ${regs_now} [^\n]*\n +sass.instructions +0 +1 +0 +-7 *\n.*accept them all with: UPDATE ALL"
  "${TILEPERF}" preview "${WORK}" --markdown "${WORK}/preview.md" --update-command "UPDATE ALL")
file(READ "${WORK}/preview.md" markdown)
foreach(want "\\*\\*1 would regress, 0 would improve, 0 within limits\\*\\*"
    "\\| `regs` \\| 1 \\| 0 \\| 0 \\| \\+1 \\|"
    "<summary><b>perf.gelu.f16_1024.sm_120</b>: would regress: regs ${regs_old} -> ${regs_now}"
    "Accept them all with: `UPDATE ALL`")
  if(NOT markdown MATCHES "${want}")
    message(FATAL_ERROR "the preview's Markdown lacks ${want}:\n${markdown}")
  endif()
endforeach()
step("update" 0
  "perf.gelu.f16_1024.sm_120: updated [^\n]*\n(  launch: [^\n]*\n)?  2 metric\\(s\\) moved; toolchain was: [^\n]*tileiras 0\\.0\\.1[^\n]*; now: [^\n]*tileiras ${current_re}[^\n]*\n.*sass.instructions +${old} +${now} +-7"
  ${check} --update)
step("summary of the update" 0
  "perf.gelu.f16_1024.sm_120 +updated [^\n]*\n    2 metric\\(s\\) moved; toolchain was: [^\n]*\n.*    sass.instructions: ${old} -> ${now} \\(-7, -[0-9.]+%, limit \\+[0-9.]+, improved\\)"
  "${TILEPERF}" summary "${WORK}")
step("check after the update" 0 "perf.gelu.f16_1024.sm_120: pass" ${check})
file(READ "${baseline}" updated)
if(NOT updated MATCHES "\"tileiras\": \"${current_re}\"")
  message(FATAL_ERROR "the updated baseline does not record the new tileiras")
endif()
