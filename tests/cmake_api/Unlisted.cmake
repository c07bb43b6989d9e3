# cmake -DSOURCE=<project> -DWORK=<folder> -DTILEPERF_CMAKE_DIR=... -DTILEPERF_PYTHON=...
#       -DTILEPERF_PYTHON_DIR=... -DTILEPERF_COMMAND=<tileperf> -P Unlisted.cmake
# A project with a kernel file whose import fails and one that is fine:
# configure goes on with a warning naming the first cause, the fine file's
# tests are registered, and the broken file's test fails as bad input with
# the same cause.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()
function(expect what regex text)
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")  # CMake wraps its messages
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected /${regex}/ in:\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
run("${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}" -DCASE=unlisted "-DTILEPERF_CMAKE_DIR=${TILEPERF_CMAKE_DIR}"
  "-DTILEPERF_PYTHON=${TILEPERF_PYTHON}" "-DTILEPERF_PYTHON_DIR=${TILEPERF_PYTHON_DIR}"
  "-DTILEPERF_COMMAND=${TILEPERF_COMMAND}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure stopped at the broken file (exit ${rc}):\n${out}")
endif()
set(cause "AttributeError: module 'json' has no attribute 'TILE' \\(raised at [^ ]*/lib/broken_helper.py:2\\)")
expect("the configure warning" "CMake Warning.*cannot list the configurations of [^ ]*/broken.py: [^ ]*/broken.py: ${cause}"
  "${out}")
run(ctest --test-dir "${WORK}" -N)
expect("the registered tests" "perf[.]broken[.]unlisted[.]sm_90.*perf[.]k[.]a[.]sm_90.*perf[.]k[.]b[.]sm_90" "${out}")
run(ctest --test-dir "${WORK}" -R "^perf[.]broken[.]unlisted[.]sm_90$" --output-on-failure)
if(rc EQUAL 0)
  message(FATAL_ERROR "the broken file's test passed:\n${out}")
endif()
expect("the failing test" "perf[.]broken[.]unlisted[.]sm_90: bad input: the configurations of broken could not be listed when the project was configured: [^ ]*/broken.py: ${cause}" "${out}")
