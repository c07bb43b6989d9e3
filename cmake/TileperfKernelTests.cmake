# TileperfKernelTests: the CMake API of tileperf.
#
# Registers one CTest test per kernel configuration and architecture. Each
# test compiles the configuration's TileIR bytecode with tileiras, extracts
# SASS and resource metrics with cuobjdump, and compares them with a
# checked-in baseline (see README.md and docs/reference/cmake-api.md).
#
# Use it through find_package(tileperf) (installed package), through
# add_subdirectory(<tileperf source>), or, in tileperf itself, include().
#
# Settings (cache variables, defaults in brackets):
#   TILEPERF_ARCHS            architectures per configuration [sm_120;sm_100;sm_90]
#   TILEPERF_BASELINE_DIR     baselines, one folder per kernel [<top source>/baselines]
#   TILEPERF_CHECKS_DIR       policy files [<top source>/checks if it holds a
#                             default.json, else tileperf's own defaults]
#   TILEPERF_BYTECODE_VERSION TileIR bytecode version of the dump step [13.4, from
#                             tileperf_dump/defaults.json]
#   TILEPERF_TOOL_TIMEOUT     seconds before a tool counts as hung [120]
#   TILEPERF_MANIFEST_TIMEOUT seconds a kernel file's import may take at configure
#                             time (the manifest step) before configure stops
#                             and names the file and where it was [300]
#   TILEPERF_CACHE_DIR        result cache of the perf tests, shared by builds or CI
#                             jobs when they point at one folder; off: none
#                             [<build>/tileperf/cache; TILEPERF_CACHE_DIR in the
#                             environment of a test run overrides it]
#                             TILEPERF_CACHE_URL in the environment of a test run: a
#                             team's cache server the local cache reads through
#                             (TILEPERF_CACHE_WRITE=1 writes back; see docs/guide/cache.md)
#   TILEPERF_STRICT           fail tests whose metrics improved beyond tolerance
#                             (stale baselines) [OFF]
#   TILEPERF_REQUIRE_RUN      fail tests that cannot run instead of skipping them
#                             [OFF; on in effect when CI is set as the tests run]
#   TILEPERF_MEASUREMENTS     print each gated metric as a CTest measurement, which
#                             `ctest -T Test` records in Test.xml for CDash [OFF]
#   TILEPERF_PYTHON           interpreter with cuda-tile and pytest (FindCudaTile)
include_guard(GLOBAL)

# The parts the public functions below are made of, one concern a file:
#   TileperfSettings.cmake      the settings above, the defaults and work paths
#                               shared with the tileperf command and the Python
#                               package, the toolchain's Find modules
#   TileperfArguments.cmake     parsing and checking the functions' arguments
#   TileperfTestCommands.cmake  a perf test's command, toolchain.probe, run.start
#   TileperfBatches.cmake       the dump and compile batches, a kernel's dump test
#   TileperfManifest.cmake      a kernel file's configurations, listed at
#                               configure time, or its placeholder tests
include("${CMAKE_CURRENT_LIST_DIR}/TileperfSettings.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TileperfArguments.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TileperfTestCommands.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TileperfBatches.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/TileperfManifest.cmake")

# tileperf_add_kernel_tests
# -------------------------
# Registers the perf tests of one cuTile kernel file: a dump test
# `dump.<kernel>` that exports every listed configuration to TileIR bytecode,
# and one test `perf.<kernel>.<config>.<arch>` per configuration and
# architecture, labelled `perf`, the architecture and the kernel.
#
# Parameters:
#   KERNEL <name>        kernel name, [A-Za-z0-9_]+; names the tests and the
#                        baseline folder. Required.
#   SOURCE <file.py>     the kernel file; it defines CONFIGS (see
#                        tools/tileperf_dump), the one list of its
#                        configurations: each gets its tests. Default:
#                        <KERNEL>.py in the current source folder.
#   ARCHS <arch>...      architectures (sm_[0-9]+[a-z]?: sm_120, sm_90a).
#                        Default: TILEPERF_ARCHS.
#   BASELINE_DIR <dir>   where <config>.<arch>.json baselines live.
#                        Default: TILEPERF_BASELINE_DIR/<KERNEL>.
#   CHECKS_DIR <dir>     policy files. Default: TILEPERF_CHECKS_DIR.
#   LABELS <label>...    extra labels for every test.
#   PYTHONPATH <dir>...  folders on the Python path when the kernel file is
#                        imported (at configure and in the dump step), e.g. the
#                        root of a package it imports. A kernel file inside a
#                        package is imported by its dotted name anyway.
#   PLACEHOLDER_MODULES <module>...
#                        modules the kernel file (or what it imports) imports
#                        that the gate machine lacks (torch, triton): imported
#                        as placeholder modules (see tools/tileperf_dump).
#   BARE_PACKAGES <package>...
#                        packages of a library imported without running their
#                        __init__.py (their kernel modules and what those import
#                        load as usual), e.g. one whose __init__ imports torch
#                        and the whole library (see tools/tileperf_dump).
#
# Usage:
#   tileperf_add_kernel_tests(KERNEL softmax ARCHS sm_120 sm_90)
#
# Stops the configure step on unknown keywords, missing arguments, repeated
# kernels or architectures and malformed names. A kernel file whose
# configurations cannot be listed (its import fails, exits or hangs) is a
# configure warning with its first cause, and its tests
# perf.<kernel>.unlisted.<arch> fail (bad input) with it; the other files'
# tests are registered.
function(tileperf_add_kernel_tests)
  _tileperf_parse(tileperf_add_kernel_tests ""
    "KERNEL;SOURCE;BASELINE_DIR;CHECKS_DIR" "CONFIGS;ARCHS;LABELS;PYTHONPATH;PLACEHOLDER_MODULES;BARE_PACKAGES"
    "KERNEL" ${ARGN})
  _tileperf_kernel_arguments()
  set_property(GLOBAL APPEND PROPERTY TILEPERF_KERNELS "${kernel}")
  # Its docstring feeds tileperf_write_kernel_table.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
  _tileperf_manifest("${kernel}" "${source}" "${arg_BASELINE_DIR}" "${arg_CHECKS_DIR}" "${arg_ARCHS}"
    "${pythonpath}" "${arg_PLACEHOLDER_MODULES}" "${arg_BARE_PACKAGES}")
  foreach(fact IN ITEMS CONFIGS SUMMARY)
    string(TOLOWER "${fact}" var)
    set_property(GLOBAL PROPERTY TILEPERF_KERNEL_${fact}_${kernel} "${tileperf_${var}}")
  endforeach()
  set_property(GLOBAL PROPERTY TILEPERF_KERNEL_ARCHS_${kernel} "${arg_ARCHS}")
  set_property(GLOBAL PROPERTY TILEPERF_KERNEL_TESTS_${kernel} "${tileperf_tests}")
  set_property(GLOBAL PROPERTY TILEPERF_KERNEL_SOURCE_${kernel} "${source}")

  _tileperf_add_toolchain_probe()
  _tileperf_add_run_start()
  set(compile_fixture "")
  if(NOT _TILEPERF_MISSING AND NOT tileperf_unlisted)
    if(pythonpath)
      set(pythonpath PYTHONPATH ${pythonpath})
    endif()
    _tileperf_add_dump(NAME "dump.${kernel}" STAMP "${tileperf_dump_stamp}"
      FIXTURE "tileperf.dump.${kernel}" RECORD "${tileperf_manifest}"
      LABELS perf dump "${kernel}" ${arg_LABELS} ${pythonpath} ARGS ${tileperf_dump_args})
  endif()
  list(GET tileperf_tests 0 first)
  foreach(test IN LISTS tileperf_tests)
    cmake_parse_arguments(t "" "CONFIG;ARCH;BYTECODE;BASELINE" "" ${tileperf_test_${test}})
    if(_TILEPERF_MISSING OR tileperf_unlisted)
      _tileperf_not_run_command(command "${test}" "${kernel}" "${t_CONFIG}")
    else()
      _tileperf_check_command(command "${test}")
    endif()
    add_test(NAME "${test}" COMMAND ${command})
    if(NOT _TILEPERF_MISSING AND NOT tileperf_unlisted AND test STREQUAL first)  # numbered after the first perf test
      _tileperf_batch_compile(compile_fixture "${kernel}" "${tileperf_manifest}")
    endif()
    set_tests_properties("${test}" PROPERTIES LABELS "perf;${t_ARCH};${kernel};${arg_LABELS}"
      SKIP_RETURN_CODE "${TILEPERF_SKIP_EXIT_CODE}" TIMEOUT 900 FIXTURES_REQUIRED
      "tileperf.dump.${kernel};tileperf.toolchain;tileperf.run;${compile_fixture}")
  endforeach()
  tileperf_add_update_target()
endfunction()

# tileperf_require_python_packages(<requirements file>)
# -----------------------------------------------------
# Checks at configure time that the Python of the dump step (TILEPERF_PYTHON)
# has the project's extra packages (the kernel library itself, numpy, ...)
# at the versions pinned in <requirements file>, one `name==version` a line
# (`#` starts a comment). Stops with the command that installs them
# (`tools/run install` and `tools/run setup` install the files named in
# TILEPERF_REQUIREMENTS). Without cuTile nothing is checked: the perf tests
# are reported as not run anyway.
#
# Usage:
#   tileperf_require_python_packages(${CMAKE_CURRENT_SOURCE_DIR}/requirements.txt)
function(tileperf_require_python_packages file)
  get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "tileperf_require_python_packages: '${file}' does not exist")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  if("CudaTile" IN_LIST _TILEPERF_MISSING)
    return()
  endif()
  execute_process(
    COMMAND "${TILEPERF_PYTHON}" "${TILEPERF_PYTHON_DIR}/tileperf_dump/requirements.py" "${file}"
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tileperf_require_python_packages: ${err}install them with: "
      "${TILEPERF_PYTHON} -m pip install --no-deps -r ${file}")
  endif()
endfunction()

# tileperf_write_kernel_table(<file>)
# ------------------------------------
# Writes a Markdown table of the kernels registered so far: name, the first
# line of the kernel file's docstring, configurations, architectures, and a
# total line. Call it after every tileperf_add_kernel_tests.
function(tileperf_write_kernel_table file)
  get_property(kernels GLOBAL PROPERTY TILEPERF_KERNELS)
  set(text "| kernel | what it computes | configurations | architectures |\n")
  string(APPEND text "| --- | --- | --- | --- |\n")
  set(n_configs 0)
  set(n_tests 0)
  foreach(kernel IN LISTS kernels)
    get_property(source GLOBAL PROPERTY TILEPERF_KERNEL_SOURCE_${kernel})
    get_property(config_list GLOBAL PROPERTY TILEPERF_KERNEL_CONFIGS_${kernel})
    get_property(arch_list GLOBAL PROPERTY TILEPERF_KERNEL_ARCHS_${kernel})
    get_property(doc GLOBAL PROPERTY TILEPERF_KERNEL_SUMMARY_${kernel})
    string(REPLACE "|" "\\|" doc "${doc}")
    list(LENGTH config_list nc)
    list(LENGTH arch_list na)
    math(EXPR n_configs "${n_configs} + ${nc}")
    math(EXPR n_tests "${n_tests} + ${nc} * ${na}")
    list(JOIN config_list ", " configs)
    list(JOIN arch_list ", " archs)
    file(RELATIVE_PATH link "${CMAKE_SOURCE_DIR}" "${source}")
    string(APPEND text "| [`${kernel}`](${link}) | ${doc} | ${configs} | ${archs} |\n")
  endforeach()
  list(LENGTH kernels n_kernels)
  string(APPEND text "\n${n_kernels} kernels, ${n_configs} configurations, ${n_tests} perf tests.\n")
  set(old "")
  if(EXISTS "${file}")
    file(READ "${file}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${file}" "${text}")
  endif()
endfunction()

# tileperf_add_update_target
# --------------------------
# Adds the build target `update_baselines` (once): it reruns the perf tests
# with TILEPERF_UPDATE_BASELINES=1, so that each writes its baseline
# atomically instead of comparing. Environment at build time:
#   TILEPERF_FILTER   regex of test names to update (ctest -R)
#   TILEPERF_LABEL    label of tests to update (ctest -L), besides `perf`
function(tileperf_add_update_target)
  if(TARGET update_baselines)
    return()
  endif()
  _tileperf_work_path(markdown update_summary md)
  _tileperf_work_path(html update_summary html)
  add_custom_target(update_baselines
    COMMAND "${CMAKE_COMMAND}"
      "-DCTEST_COMMAND=${CMAKE_CTEST_COMMAND}"
      "-DBUILD_DIR=${CMAKE_BINARY_DIR}"
      "-DTILEPERF=$<TARGET_FILE:tileperf::tileperf>"
      "-DWORK_DIR=${TILEPERF_WORK_DIR}"
      "-DSUMMARY_MD=${markdown}" "-DSUMMARY_HTML=${html}"
      -P "${_TILEPERF_CMAKE_DIR}/TileperfUpdateBaselines.cmake"
    USES_TERMINAL
    COMMENT "Rewriting tileperf baselines from fresh metrics")
  if(TARGET tileperf)  # built here rather than imported from an installed package
    add_dependencies(update_baselines tileperf)
  endif()
endfunction()
