# Self-tests of the gate on edited kernels: a patch is applied to a copy of a
# shipped kernel, the copy is dumped, and each configuration is checked
# against the shipped kernel's baselines.
#
# The patch's header (the text before '---') carries an `expect:` line:
#   expect: <metric>...   a mutant: the check must fail with exit 3 and name
#                         each of these metrics as over its limit
#   expect: no change     a no-op edit: the check must pass with --exact
#                         (no metric, informational ones included, moves)
include_guard(GLOBAL)

set(_TILEPERF_EXPECT_RUN "${CMAKE_CURRENT_LIST_DIR}/ExpectRun.cmake")
set(_TILEPERF_APPLY_PATCH "${CMAKE_CURRENT_LIST_DIR}/ApplyPatch.cmake")
set(TILEPERF_SELFTEST_DIR "${CMAKE_BINARY_DIR}/tileperf-selftest")
find_program(TILEPERF_PATCH patch REQUIRED)

# tileperf_add_edit_test(PATCH <file> KERNEL <name> CONFIGS <cfg>... [ARCHS <arch>...])
#   Registers edit.<name>.apply and dump.edit.<name>, then per configuration
#   and architecture mutant.<name>.<cfg>.<arch> or noop.<name>.<cfg>.<arch>,
#   where <name> is the patch file's name without .patch.
function(tileperf_add_edit_test)
  _tileperf_parse(tileperf_add_edit_test "" "PATCH;KERNEL" "CONFIGS;ARCHS" "PATCH;KERNEL;CONFIGS"
    ${ARGN})
  if(NOT DEFINED arg_ARCHS)
    set(arg_ARCHS ${TILEPERF_ARCHS})
  endif()
  get_filename_component(patch "${arg_PATCH}" ABSOLUTE)
  get_filename_component(name "${patch}" NAME_WE)
  _tileperf_check_name("edit" "${name}")
  file(STRINGS "${patch}" expect_line REGEX "^expect:" LIMIT_COUNT 1)
  string(REGEX REPLACE "^expect:[ \t]*" "" expect "${expect_line}")
  if(expect STREQUAL "")
    message(FATAL_ERROR "tileperf_add_edit_test: ${patch} has no 'expect:' line in its header")
  endif()

  get_property(registrations GLOBAL PROPERTY TILEPERF_REGISTRATIONS)
  set(source "")
  foreach(entry IN LISTS registrations)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 kernel)
    if(kernel STREQUAL arg_KERNEL)
      list(GET fields 1 source)
    endif()
  endforeach()
  if(NOT source)
    message(FATAL_ERROR "tileperf_add_edit_test: kernel '${arg_KERNEL}' is not registered")
  endif()

  set(work "${TILEPERF_SELFTEST_DIR}/${name}")
  get_filename_component(file_name "${source}" NAME)
  add_test(NAME "edit.${name}.apply"
    COMMAND "${CMAKE_COMMAND}" "-DPATCH_PROGRAM=${TILEPERF_PATCH}" "-DSOURCE=${source}"
      "-DPATCH=${patch}" "-DOUTPUT=${work}/${file_name}" -P "${_TILEPERF_APPLY_PATCH}")
  set_tests_properties("edit.${name}.apply" PROPERTIES
    FIXTURES_SETUP "tileperf.edit.${name}" LABELS "selftest;edit")
  _tileperf_add_dump(NAME "dump.edit.${name}" SOURCE "${work}/${file_name}" OUT_DIR "${work}"
    FIXTURE "tileperf.dump.edit.${name}" REQUIRES "tileperf.edit.${name}"
    CONFIGS ${arg_CONFIGS} LABELS selftest edit)

  if(expect STREQUAL "no change")
    set(kind noop)
    set(expectation -DEXPECT_EXIT=0 "-DEXPECT_OUTPUT=no metric moved")
    set(extra EXTRA --exact)
  else()
    set(kind mutant)
    string(REPLACE " " ";" metrics "${expect}")
    set(pattern "over the limit:")
    foreach(metric IN LISTS metrics)
      string(REPLACE "." "\\." metric "${metric}")
      string(APPEND pattern "[^\n]*[ ,]${metric}(,|\n)")
    endforeach()
    set(expectation -DEXPECT_EXIT=3 "-DEXPECT_OUTPUT=${pattern}")
    set(extra "")
  endif()
  foreach(config IN LISTS arg_CONFIGS)
    foreach(arch IN LISTS arg_ARCHS)
      set(test "${kind}.${name}.${config}.${arch}")
      _tileperf_check_command(command KERNEL "${arg_KERNEL}" CONFIG "${config}" ARCH "${arch}"
        BYTECODE "${work}/${config}.tileirbc" WORK_DIR "${work}"
        BASELINE "${TILEPERF_BASELINE_DIR}/${arg_KERNEL}/${config}.${arch}.json"
        CHECKS_DIR "${TILEPERF_CHECKS_DIR}" ${extra})
      add_test(NAME "${test}"
        COMMAND "${CMAKE_COMMAND}" ${expectation} -P "${_TILEPERF_EXPECT_RUN}" -- ${command})
      set_tests_properties("${test}" PROPERTIES
        LABELS "selftest;${kind};${arch}" FIXTURES_REQUIRED "tileperf.dump.edit.${name}")
    endforeach()
  endforeach()
endfunction()
