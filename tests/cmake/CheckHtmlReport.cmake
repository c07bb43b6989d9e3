# Renders the HTML report in a real headless browser and checks that its
# script drew what it should (cmake -P):
#   cmake -DTILEPERF=<tileperf> -DRESULTS=<dir> -DOUT=<dir> -P CheckHtmlReport.cmake
# Prints "chromium not found" (the test's skip expression) without a browser.
cmake_minimum_required(VERSION 3.25)
find_program(CHROMIUM NAMES chromium chromium-browser google-chrome)
if(NOT CHROMIUM)
  message("chromium not found: install Debian's chromium to render the report")
  return()
endif()
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${TILEPERF}" report "${RESULTS}" --html "${OUT}/report.html"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tileperf report failed (exit ${rc})")
endif()
execute_process(
  COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu --dump-dom "file://${OUT}/report.html"
  RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_QUIET TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CHROMIUM} failed to render ${OUT}/report.html (exit ${rc})")
endif()
file(WRITE "${OUT}/report.dom.html" "${dom}")

# What the page's script must have drawn from the 9 results of the fixture.
set(expect
  "data-rendered=\"yes\""
  "<span class=\"count state-regressed\" data-state=\"regressed\">2 regressed</span>"
  "<span class=\"count state-pass\" data-state=\"pass\">7 pass</span>"
  "<div class=\"test-detail\" data-test=\"perf.gelu.f16_1024.sm_120\">"
  "<div class=\"test-detail\" data-test=\"perf.matmul.f16_128x128x64.sm_90\">"
  "check broken: remarks.tensor_core.failed == 0"
  "<svg class=\"opcode-chart\""
  "<rect class=\"bar up\" data-opcode=\"sass.opcode.MUFU.EX2\""
  "<rect class=\"bar down\" data-opcode=\"sass.opcode.MUFU.TANH\""
  "<rect class=\"bar arch-sm_120\" data-arch=\"sm_120\" data-group=\"softmax.f16_4096\""
  "<rect class=\"bar arch-sm_100\" data-arch=\"sm_100\" data-group=\"softmax.f16_4096\""
  "<rect class=\"bar arch-sm_90\" data-arch=\"sm_90\" data-group=\"softmax.f16_4096\""
  "<tr data-test=\"perf.softmax.f16_1024.sm_90\">")
set(missing "")
foreach(item IN LISTS expect)
  string(FIND "${dom}" "${item}" at)
  if(at EQUAL -1)
    string(APPEND missing "\n  ${item}")
  endif()
endforeach()
string(REGEX MATCHALL "<tr data-test=" rows "${dom}")
list(LENGTH rows n_rows)
if(NOT n_rows EQUAL 9)
  string(APPEND missing "\n  9 rows in the table of all tests (found ${n_rows})")
endif()
if(missing)
  message(FATAL_ERROR "the rendered report (${OUT}/report.dom.html) lacks:${missing}")
endif()
message("rendered by ${CHROMIUM}: all expected elements found")
