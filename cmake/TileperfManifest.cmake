# TileperfManifest: what the perf tests of a kernel file are, listed at
# configure time by the dump step's Python (tileperf_dump.manifest), or the
# placeholder tests of a file whose configurations are not known.
include_guard(GLOBAL)

# _tileperf_manifest(<kernel> <source> <baseline-dir> <checks-dir> <archs>
#                    <pythonpath> <placeholders> <bare-packages>)
#   What the perf tests of a kernel file are, made by the dump step's Python
#   (python -m tileperf_dump.manifest, which imports the file with the
#   PYTHONPATH, placeholder modules and bare packages of the dump step):
#   sets tileperf_configs, tileperf_summary (the docstring's first sentence),
#   tileperf_work_dir, tileperf_manifest (its record), tileperf_dump_stamp,
#   tileperf_dump_args and tileperf_tests, and per test tileperf_test_<test>
#   (CONFIG, ARCH, BYTECODE, BASELINE) in the caller's scope. A file that
#   cannot be loaded is a configure warning with its error, and its one
#   configuration "unlisted" (tileperf_unlisted: the error's first line)
#   fails on every architecture. Without cuTile the configuration is
#   "configs_unknown": one test per architecture then says why nothing
#   could be measured.
macro(_tileperf_manifest kernel source baseline checks archs pythonpath placeholders bare)
  set(tileperf_unlisted "")
  if("CudaTile" IN_LIST _TILEPERF_MISSING)  # no Python to ask: the names are made here
    _tileperf_placeholder_tests("${kernel}" configs_unknown "${archs}")
  else()
    _tileperf_run_manifest(_tileperf_registration _tileperf_error "${kernel}" "${source}" "${baseline}"
      "${checks}" "${archs}" "${pythonpath}" "${placeholders}" "${bare}")
    if(_tileperf_error)
      # Configure goes on: the file's tests fail with its error, the other files' are registered.
      message(WARNING "${_tileperf_error}")
      string(REGEX REPLACE "\n.*" "" tileperf_unlisted "${_tileperf_error}")
      string(REGEX REPLACE "^[^:]*: cannot list the configurations of [^:]*: ?" "" tileperf_unlisted
        "${tileperf_unlisted}")
      set_property(GLOBAL PROPERTY TILEPERF_KERNEL_UNLISTED_${kernel} "${tileperf_unlisted}")
      _tileperf_placeholder_tests("${kernel}" unlisted "${archs}")
    else()
      include("${_tileperf_registration}")
    endif()
  endif()
endmacro()

# _tileperf_placeholder_tests(<kernel> <config> <archs>): one test per
#   architecture, perf.<kernel>.<config>.<arch>, for a kernel file whose
#   configurations are not known (configs_unknown: no cuTile; unlisted: the
#   file could not be listed); sets what _tileperf_manifest sets.
macro(_tileperf_placeholder_tests kernel config archs)
  set(tileperf_work_dir "${TILEPERF_WORK_DIR}/${kernel}")
  set(tileperf_configs ${config})
  set(tileperf_summary "")
  set(tileperf_tests "")
  foreach(_tileperf_arch IN ITEMS ${archs})
    list(APPEND tileperf_tests "perf.${kernel}.${config}.${_tileperf_arch}")
    set("tileperf_test_perf.${kernel}.${config}.${_tileperf_arch}" CONFIG ${config} ARCH "${_tileperf_arch}")
  endforeach()
endmacro()

# _tileperf_run_manifest(<out-var> <error-var> <kernel> <source> <baseline-dir> <checks-dir>
#                        <archs> <pythonpath> <placeholders> <bare-packages>)
#   Runs the manifest step; <out-var>: the registration file it wrote, or
#   <error-var>: why the file's configurations could not be listed.
function(_tileperf_run_manifest out error kernel source baseline checks archs pythonpath placeholders bare)
  _tileperf_python(python ${pythonpath})
  set(args --kernel "${kernel}" --work-dir "${TILEPERF_WORK_DIR}" --baseline-dir "${baseline}"
    --checks-dir "${checks}" --bytecode-version "${TILEPERF_BYTECODE_VERSION}")
  list(JOIN archs "," archs)
  list(APPEND args "--archs=${archs}")
  foreach(module IN LISTS placeholders)
    list(APPEND args --placeholder "${module}")
  endforeach()
  foreach(package IN LISTS bare)
    list(APPEND args --bare-package "${package}")
  endforeach()
  # The step's own watchdog names the line an import hangs at; the process
  # timeout, a minute later, stops one that a C extension holds.
  math(EXPR backstop "${TILEPERF_MANIFEST_TIMEOUT} + 60")
  execute_process(COMMAND ${python} -m tileperf_dump.manifest ${args} --timeout "${TILEPERF_MANIFEST_TIMEOUT}"
      "${source}"
    TIMEOUT ${backstop}
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE registration OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(cannot "tileperf_add_kernel_tests: cannot list the configurations of ${source}")
  set(problem "")
  if(rc STREQUAL "Process terminated due to timeout")
    set(problem "${cannot}: its import did not end within ${backstop} s (TILEPERF_MANIFEST_TIMEOUT)\n${err}")
  elseif(NOT rc MATCHES "^[0-9]+$" OR err MATCHES "(^|\n)Subprocess killed\n?$")  # a signal (cmake -E env says so)
    set(problem "${cannot}: its import ended the process (killed by a signal)\n${err}")
  elseif(NOT rc EQUAL 0)
    set(problem "${cannot}: ${err}")
  elseif(NOT registration MATCHES "registration[.]cmake$" OR NOT EXISTS "${registration}")
    # The kernel file ended the process with exit status 0 (os._exit in a
    # thread, say) before the step wrote what it registers.
    set(problem "${cannot}: the step ended (exit 0) without writing its registration: the file's import ended the "
      "process\n${err}")
  endif()
  set(${error} "${problem}" PARENT_SCOPE)
  set(${out} "${registration}" PARENT_SCOPE)
endfunction()
