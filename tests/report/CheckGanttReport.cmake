# Renders the HTML report of real results in a headless browser and checks
# the picture of the main loop's schedule (cmake -P):
#   cmake -DTILEPERF=<tileperf> -DBASE=<dir> -DEDIT=<dir> -DOUT=<dir> -P CheckGanttReport.cmake
# BASE holds the shipped matmul's results (its TMA pipeline: loads overlap
# the MMAs), EDIT those of a mutant that loads with per-element global loads
# in the main loop (load, wait, compute). Prints "chromium not found" (the
# test's skip expression) without a browser.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Chromium.cmake")
chromium_or_skip("the report")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/base" "${OUT}/edit")
# One test of each: the results and the timelines beside them.
foreach(side base edit)
  string(TOUPPER "${side}" var)
  foreach(ext result.json timeline.json)
    file(COPY_FILE "${${var}}/f16_128x128x64.sm_90.${ext}" "${OUT}/${side}/f16_128x128x64.sm_90.${ext}")
  endforeach()
endforeach()
foreach(side base edit)
  execute_process(COMMAND "${TILEPERF}" report "${OUT}/${side}" --html "${OUT}/${side}.html" --all-runs
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tileperf report failed on ${side} (exit ${rc})")
  endif()
endforeach()
chromium_dump_dom("file://${OUT}/edit.html" "${OUT}/edit.dom.html" dom)
chromium_screenshot("file://${OUT}/edit.html" "${OUT}/edit.png" 1280,3000)
file(READ "${OUT}/base.html" base)

set(missing "")
# The mutant needs a look: its detail draws the main loop, whose global
# loads are waited for in the same iteration.
foreach(item
    "<p class=\"launch\">launch: est. "
    "<svg class=\"gantt\" data-loop=\""
    "data-role=\"main\""
    "<rect class=\"wait\""
    "<rect class=\"issue mark-L\""
    "<rect class=\"flight mark-L\""
    "one steady iteration:"
    "loop.main.overlap_pct")
  string(FIND "${dom}" "${item}" at)
  if(at EQUAL -1)
    string(APPEND missing "\n  ${item}")
  endif()
endforeach()
if(NOT dom MATCHES "overlap ([0-9]+)%</summary>" OR CMAKE_MATCH_1 GREATER 60)
  string(APPEND missing "\n  the mutant's main loop with an overlap of 60% or less")
endif()
# The shipped kernel passes: no detail is drawn for it, and its timeline
# says its loads overlap (all of them: a warp-specialised TMA pipeline).
file(READ "${BASE}/f16_128x128x64.sm_90.timeline.json" base_timeline)
if(NOT base_timeline MATCHES "\"overlap_pct\": 100" OR NOT base_timeline MATCHES "\"role\": \"producer\"")
  string(APPEND missing "\n  the shipped matmul's timeline: overlap 100% and a producer loop")
endif()
if(missing)
  message(FATAL_ERROR "the rendered report (${OUT}/edit.dom.html) lacks:${missing}")
endif()
message("rendered by ${CHROMIUM}: the main loop's schedule drawn; screenshot ${OUT}/edit.png")
