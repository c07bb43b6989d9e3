# Renders the page of `tileperf history --html` that tests/history/check.sh
# history wrote, in a real headless browser, and checks what a reader sees
# (cmake -P):
#   cmake -DWORK=<check.sh's WORK folder> -P CheckHistoryHtml.cmake
# Prints "chromium not found" (the test's skip expression) without a browser.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Chromium.cmake")
chromium_or_skip("the history")
set(page "${WORK}/history.html")
if(NOT EXISTS "${page}")
  message(FATAL_ERROR "${page} is missing: check.sh history writes it")
endif()
foreach(c c1 c5 c7 c8 c10)
  file(READ "${WORK}/commits/${c}" ${c})
  string(STRIP "${${c}}" ${c})
endforeach()
chromium_dump_dom("file://${page}" "${WORK}/history.dom.html" dom)
chromium_screenshot("file://${page}" "${WORK}/history.png" 1280,1400)

set(chart "<svg class=\"history-chart\" data-test=\"perf.poly.f32_1024.sm_120\" data-metric=\"sass.instructions\"")
set(expect
  "${chart}"
  "<rect class=\"drift\""
  "<title>drift: sass.instructions "
  "<line class=\"mark mark-toolchain\""
  "<line class=\"mark mark-tuning\""
  "<path class=\"series\" d=\"M"
  "<a href=\"#commit-${c8}\" data-commit=\"${c8}\"><circle class=\"point verdict-regressed\""
  "<a href=\"#commit-${c1}\" data-commit=\"${c1}\"><circle class=\"point verdict-first\""
  "<tr id=\"commit-${c8}\">"
  "<p class=\"drift-note\">drift: sass.instructions ")
missing_items("${dom}" missing ${expect})
# The chart of sass.instructions has a point at each of its seven changes.
string(FIND "${dom}" "${chart}" at)
if(NOT at EQUAL -1)
  string(SUBSTRING "${dom}" ${at} -1 rest)
  string(FIND "${rest}" "</svg>" end)
  string(SUBSTRING "${rest}" 0 ${end} svg)
  string(REGEX MATCHALL "<circle class=\"point" points "${svg}")
  list(LENGTH points n)
  if(NOT n EQUAL 7)
    string(APPEND missing "\n  7 points on the sass.instructions chart (found ${n})")
  endif()
endif()
if(missing)
  message(FATAL_ERROR "the rendered history (${WORK}/history.dom.html) lacks:${missing}")
endif()
message("rendered by ${CHROMIUM}: all expected elements found; screenshot ${WORK}/history.png")
