# Renders the Markdown comment as a code host would (cmark-gfm with GitHub's
# table extension; raw HTML for <details>), then in a real headless browser
# with a screenshot, and checks what a reviewer sees (cmake -P):
#   cmake -DTILEPERF=<tileperf> -DRESULTS=<dir> -DOUT=<dir> -P CheckMarkdownReport.cmake
# Prints "chromium not found" or "cmark-gfm not found" (the test's skip
# expression) without them.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Chromium.cmake")
chromium_or_skip("the report")
find_program(CMARK NAMES cmark-gfm)
if(NOT CMARK)
  message("cmark-gfm not found: install Debian's cmark-gfm to render the Markdown")
  return()
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${TILEPERF}" report "${RESULTS}" --markdown "${OUT}/report.md"
  --commit 0123456789abcdef0123 --commit-url https://example.invalid/commit/0123456789ab
  --run-url https://example.invalid/runs/42 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tileperf report failed (exit ${rc})")
endif()
execute_process(COMMAND "${CMARK}" --unsafe -e table -e autolink "${OUT}/report.md"
  RESULT_VARIABLE rc OUTPUT_VARIABLE body)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmark-gfm failed on ${OUT}/report.md (exit ${rc})")
endif()
file(WRITE "${OUT}/report.md.html"
  "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>comment</title></head><body>\n${body}</body></html>\n")
chromium_dump_dom("file://${OUT}/report.md.html" "${OUT}/report.md.dom.html" dom)
chromium_screenshot("file://${OUT}/report.md.html" "${OUT}/report.md.png" 1000,1400)

# What the comment must show for the 9 results of the fixture: the title with
# the counts, commit and run links, one heading per kernel that needs a look,
# collapsed lines with numbers, tables that rendered as tables (not as pipes).
set(expect
  "<h2>tileperf: 2 regressed, 7 pass</h2>"
  "commit <a href=\"https://example.invalid/commit/0123456789ab\"><code>0123456789ab</code></a>"
  "<a href=\"https://example.invalid/runs/42\">CI run</a>"
  "<h3>gelu: 1 regressed</h3>"
  "<h3>matmul: 1 regressed</h3>"
  "<summary><b>regressed</b> <code>perf.gelu.f16_1024.sm_120</code>: "
  "<th>metric</th>"
  "<td><code>sass.mufu.RCP</code></td>"
  "<td align=\"right\">+800.0%</td>"
  "<summary>All 9 tests</summary>")
missing_items("${dom}" missing ${expect})
if(missing)
  message(FATAL_ERROR "the rendered comment (${OUT}/report.md.dom.html) lacks:${missing}")
endif()
# Pipes left in the text mean a table that did not render.
if(dom MATCHES "\\| --- \\|")
  message(FATAL_ERROR "a Markdown table did not render in ${OUT}/report.md.dom.html")
endif()
message("rendered: ${OUT}/report.md.png")
