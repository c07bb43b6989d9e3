# Headless Chromium for the tests that render a page (the report's and the
# history's checks include it).
#   chromium_dump_dom(<url> <file> <out-var>): the page as the browser drew it,
#     kept in <file> and returned in <out-var>.
#   chromium_screenshot(<url> <png> <width,height>): a screenshot, which must
#     be a real image (over 10 kB).
#   missing_items(<text> <out-var> <item>...): the items not found in <text>,
#     one "\n  <item>" each.
#   chromium_or_skip(<what>): finds the browser (CHROMIUM); without one, prints
#     "chromium not found" (the tests' skip expression) and ends the calling
#     script (a macro: its return() is the caller's).
macro(chromium_or_skip what)
  find_program(CHROMIUM NAMES chromium chromium-browser google-chrome)
  if(NOT CHROMIUM)
    message("chromium not found: install Debian's chromium to render ${what}")
    return()
  endif()
endmacro()

function(chromium_dump_dom url file out)
  execute_process(
    COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu --dump-dom "${url}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_QUIET TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CHROMIUM} failed to render ${url} (exit ${rc})")
  endif()
  file(WRITE "${file}" "${dom}")
  set(${out} "${dom}" PARENT_SCOPE)
endfunction()

function(chromium_screenshot url png size)
  get_filename_component(dir "${png}" DIRECTORY)
  file(REMOVE "${png}")
  execute_process(
    COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu "--window-size=${size}"
            "--screenshot=${png}" "${url}"
    WORKING_DIRECTORY "${dir}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
  set(png_size 0)
  if(EXISTS "${png}")
    file(SIZE "${png}" png_size)
  endif()
  if(NOT rc EQUAL 0 OR png_size LESS 10000)
    message(FATAL_ERROR "${CHROMIUM} made no screenshot of ${url} (exit ${rc})")
  endif()
endfunction()

function(missing_items text out)
  set(missing "")
  foreach(item IN LISTS ARGN)
    string(FIND "${text}" "${item}" at)
    if(at EQUAL -1)
      string(APPEND missing "\n  ${item}")
    endif()
  endforeach()
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()
