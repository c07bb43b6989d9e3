# Renders the HTML report in a real headless browser and checks that its
# script drew what it should (cmake -P):
#   cmake -DTILEPERF=<tileperf> -DRESULTS=<dir> -DOUT=<dir> -P CheckHtmlReport.cmake
# Prints "chromium not found" (the test's skip expression) without a browser.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Chromium.cmake")
chromium_or_skip("the report")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${TILEPERF}" report "${RESULTS}" --html "${OUT}/report.html"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tileperf report failed (exit ${rc})")
endif()
# The page as the browser drew it, with the view a link can carry: the
# table of all tests filtered to two tests and sorted by instructions.
set(url "file://${OUT}/report.html?filter=softmax%20sm_90&sort=sass.instructions-desc")
chromium_dump_dom("${url}" "${OUT}/report.dom.html" dom)
chromium_screenshot("file://${OUT}/report.html" "${OUT}/report.png" 1280,1800)

# What the page must show for the 9 results of the fixture.
set(expect
  "data-rendered=\"yes\""
  "<a class=\"count state-regressed\" data-state=\"regressed\" href=\"?filter=regressed#all-tests\">2 regressed</a>"
  "<a class=\"count state-pass\" data-state=\"pass\" href=\"?filter=pass#all-tests\">7 pass</a>"
  "<article class=\"test-detail state-regressed\" id=\"perf.gelu.f16_1024.sm_120\""
  "<article class=\"test-detail state-regressed\" id=\"perf.matmul.f16_128x128x64.sm_90\""
  "<td>sass.mufu.RCP</td><td class=\"num\" data-value=\"1\">1</td><td class=\"num\" data-value=\"9\">9</td><td class=\"num\" data-value=\"8\">+8</td>"
  "+800.0%</td><td class=\"num\">+0</td><td class=\"regressed\">regressed</td>"
  "invariant broken: remarks.tensor_core.failed == 0"
  "<svg class=\"opcode-chart\""
  "<rect class=\"bar up\" data-opcode=\"sass.opcode.MUFU.EX2\""
  "<rect class=\"bar down\" data-opcode=\"sass.opcode.MUFU.TANH\""
  "<rect class=\"bar arch-sm_120\" data-arch=\"sm_120\" data-group=\"softmax.f16_4096\""
  "<rect class=\"bar arch-sm_100\" data-arch=\"sm_100\" data-group=\"softmax.f16_4096\""
  "<rect class=\"bar arch-sm_90\" data-arch=\"sm_90\" data-group=\"softmax.f16_4096\""
  "<th aria-sort=\"descending\">sass.instructions</th>"
  "<span id=\"shown\">2 of 9 shown</span>")
missing_items("${dom}" missing ${expect})
string(REGEX MATCHALL "<tr data-test=\"[^\"]*\" data-state=\"[^\"]*\"( hidden=\"\")?" rows "${dom}")
list(LENGTH rows n_rows)
string(REGEX MATCHALL "hidden=\"\"" hidden "${rows}")
list(LENGTH hidden n_hidden)
if(NOT n_rows EQUAL 9 OR NOT n_hidden EQUAL 7)
  string(APPEND missing "\n  9 rows in the table of all tests, 7 filtered out (found ${n_rows}, ${n_hidden})")
endif()
# Sorted by instructions, largest first: the 4096 row above the 1024 row.
string(FIND "${dom}" "<tr data-test=\"perf.softmax.f16_4096.sm_90\"" big)
string(FIND "${dom}" "<tr data-test=\"perf.softmax.f16_1024.sm_90\"" small)
if(big EQUAL -1 OR small EQUAL -1 OR NOT big LESS small)
  string(APPEND missing "\n  the rows sorted by sass.instructions, largest first")
endif()
if(missing)
  message(FATAL_ERROR "the rendered report (${OUT}/report.dom.html) lacks:${missing}")
endif()
message("rendered by ${CHROMIUM}: all expected elements found; screenshot ${OUT}/report.png")
