# Self-tests of the gate on edited kernels: a patch is applied to a copy of a
# shipped kernel, the copy is dumped, and each configuration named in the
# patch is checked, on every architecture, against the shipped kernel's
# baselines.
#
# A patch is a unified diff of one kernel file (`+++ b/kernels/<file>.py`)
# after a header of free text with two keyword lines:
#   config: <config>...   configurations to check (keys of the file's CONFIGS)
#   expect: <metric>...   a mutant: each check must fail with exit 3, each of
#                         these metrics over its limit or named by a broken
#                         invariant of checks/
#   expect: no change     a no-op edit: each check must pass with --exact (no
#                         metric moves, informational ones included)
#   expect: tuning <state>  a tuning change (only constants and hints move):
#                         each check must end in <state> (pass, improved,
#                         regressed) as the launch estimate judges it
#   expect: measured      a validation edit (tests/validation): timed on the
#                         GPU beside its base, with
#   measured: <config>=<+N.N%>...  its runtime change per configuration
#                         ("untimed" before it is timed; tools/bench/record_measured.py):
#                         each check must fail when it runs 5% slower or more,
#                         and must not regress when it runs 10% faster or more
#   miss: <why>           (optional) the launch model is known to judge it
#                         against its measurement: the checks must keep
#                         missing, so that a model that gets it right shows
# and optionally
#   archs: <arch>...      the architectures to check it on (default: all); a
#                         tuning change is judged by the launch model, which
#                         only sm_90's GPU has calibrated
include_guard(GLOBAL)

set(_TILEPERF_APPLY_PATCH "${CMAKE_CURRENT_LIST_DIR}/ApplyPatch.cmake")
# What each edit expects, read by `tileperf check --edit` and `tileperf edit-report`.
set(_TILEPERF_EDITS_MANIFEST "${TILEPERF_SELFTEST_DIR}/edits.json")
find_program(TILEPERF_PATCH patch REQUIRED)

# _tileperf_patch_field(<out-var> <patch> <keyword>): the words after "<keyword>:".
function(_tileperf_patch_field out patch keyword)
  file(STRINGS "${patch}" line REGEX "^${keyword}:" LIMIT_COUNT 1)
  string(REGEX REPLACE "^${keyword}:[ \t]*" "" value "${line}")
  string(STRIP "${value}" value)
  if(value STREQUAL "")
    message(FATAL_ERROR "${patch}: the header has no '${keyword}:' line")
  endif()
  separate_arguments(value UNIX_COMMAND "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# _tileperf_patched_kernel(<kernel-var> <source-var> <patch>): the registered
# kernel whose source file the patch edits.
function(_tileperf_patched_kernel kernel_out source_out patch)
  file(STRINGS "${patch}" target REGEX "^\\+\\+\\+ " LIMIT_COUNT 1)
  string(REGEX REPLACE "^\\+\\+\\+ [^/]*/(.*[^ \t])[ \t]*.*$" "\\1" target "${target}")
  get_filename_component(target_name "${target}" NAME)
  get_property(kernels GLOBAL PROPERTY TILEPERF_KERNELS)
  foreach(kernel IN LISTS kernels)
    get_property(source GLOBAL PROPERTY TILEPERF_KERNEL_SOURCE_${kernel})
    get_filename_component(source_name "${source}" NAME)
    if(source_name STREQUAL target_name)
      set(${kernel_out} "${kernel}" PARENT_SCOPE)
      set(${source_out} "${source}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "${patch}: edits '${target}', which no registered kernel uses")
endfunction()

# _tileperf_add_edit_test(<patch>)
#   Registers edit.<name>.apply and dump.edit.<name>, then per configuration
#   and architecture mutant.<name>.<cfg>.<arch> or noop.<name>.<cfg>.<arch>,
#   where <name> is the patch file's name without .patch.
function(_tileperf_add_edit_test patch)
  get_filename_component(name "${patch}" NAME_WE)
  _tileperf_check_name("edit" "${name}")
  _tileperf_patch_field(expect "${patch}" expect)
  _tileperf_patch_field(configs "${patch}" config)
  _tileperf_patched_kernel(kernel source "${patch}")
  set(archs ${TILEPERF_ARCHS})
  file(STRINGS "${patch}" archs_line REGEX "^archs:" LIMIT_COUNT 1)
  if(archs_line)
    _tileperf_patch_field(wanted "${patch}" archs)
    set(archs "")
    foreach(arch IN LISTS wanted)
      if(arch IN_LIST TILEPERF_ARCHS)
        list(APPEND archs "${arch}")
      endif()
    endforeach()
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
    CONFIGS ${configs} LABELS selftest edit BATCH edits)

  set(measured "")
  if(expect STREQUAL "no;change")
    set(kind noop)
    set(expect "")
  elseif(expect STREQUAL "measured")
    set(kind validation)
    _tileperf_patch_field(measured "${patch}" measured)
    list(JOIN measured " " measured)
    set(measured ", \"measured\": \"${measured}\"")
    file(STRINGS "${patch}" miss_line REGEX "^miss:" LIMIT_COUNT 1)
    if(miss_line)
      string(REGEX REPLACE "^miss:[ \t]*" "" miss "${miss_line}")
      string(REPLACE "\"" "'" miss "${miss}")
      string(APPEND measured ", \"miss\": \"${miss}\"")
    endif()
  else()
    set(kind mutant)
  endif()
  _tileperf_json_list(expect_json ${expect})
  _tileperf_json_list(configs_json ${configs})
  _tileperf_json_list(archs_json ${archs})
  set_property(GLOBAL APPEND PROPERTY TILEPERF_EDITS
    "{\"name\": \"${name}\", \"kind\": \"${kind}\", \"expect\": ${expect_json}, \"configs\": ${configs_json}, \"archs\": ${archs_json}${measured}}")
  foreach(config IN LISTS configs)
    foreach(arch IN LISTS archs)
      set(test "${kind}.${name}.${config}.${arch}")
      _tileperf_check_command(command KERNEL "${kernel}" CONFIG "${config}" ARCH "${arch}"
        BYTECODE "${work}/${config}.tileirbc" WORK_DIR "${work}"
        BASELINE "${TILEPERF_BASELINE_DIR}/${kernel}/${config}.${arch}.json"
        CHECKS_DIR "${TILEPERF_CHECKS_DIR}"
        EXTRA --edit "${name}" --edit-manifest "${_TILEPERF_EDITS_MANIFEST}")
      add_test(NAME "${test}" COMMAND ${command})
      set_tests_properties("${test}" PROPERTIES
        LABELS "selftest;${kind};${arch}" FIXTURES_REQUIRED "tileperf.dump.edit.${name};tileperf.toolchain")
      set_property(GLOBAL APPEND PROPERTY TILEPERF_EDIT_TESTS "${test}")
    endforeach()
  endforeach()
endfunction()

# _tileperf_json_list(<out> <item>...): ["a", "b"] (items are [A-Za-z0-9_.]+).
function(_tileperf_json_list out)
  set(items "")
  foreach(item IN LISTS ARGN)
    list(APPEND items "\"${item}\"")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# tileperf_add_edit_tests(MUTANTS <dir> NOOPS <dir> [VALIDATION <dir>])
#   One _tileperf_add_edit_test per *.patch in the folders (mutant patches
#   must expect metrics, no-op patches "no change", validation patches
#   "measured"), then
#   `mutants.catch_rate`: after all of them, the share of mutant checks that
#   failed on the metrics they name, and of no-op checks that moved nothing.
function(tileperf_add_edit_tests)
  _tileperf_parse(tileperf_add_edit_tests "" "MUTANTS;NOOPS;VALIDATION" "" "MUTANTS;NOOPS" ${ARGN})
  file(GLOB mutants CONFIGURE_DEPENDS "${arg_MUTANTS}/*.patch")
  file(GLOB noops CONFIGURE_DEPENDS "${arg_NOOPS}/*.patch")
  set(validation "")
  if(arg_VALIDATION)
    file(GLOB validation CONFIGURE_DEPENDS "${arg_VALIDATION}/*.patch")
  endif()
  foreach(patch IN LISTS mutants)
    _tileperf_patch_field(expect "${patch}" expect)
    if(expect STREQUAL "no;change")
      message(FATAL_ERROR "${patch}: a mutant must expect metrics, not 'no change'")
    endif()
    _tileperf_add_edit_test("${patch}")
  endforeach()
  foreach(patch IN LISTS noops)
    _tileperf_patch_field(expect "${patch}" expect)
    if(NOT expect STREQUAL "no;change")
      message(FATAL_ERROR "${patch}: a no-op edit must say 'expect: no change'")
    endif()
    _tileperf_add_edit_test("${patch}")
  endforeach()
  foreach(patch IN LISTS validation)
    _tileperf_patch_field(expect "${patch}" expect)
    if(NOT expect STREQUAL "measured")
      message(FATAL_ERROR "${patch}: a validation edit must say 'expect: measured'")
    endif()
    _tileperf_add_edit_test("${patch}")
  endforeach()
  get_property(edits GLOBAL PROPERTY TILEPERF_EDITS)
  list(JOIN edits ",\n  " edits_json)
  file(CONFIGURE OUTPUT "${_TILEPERF_EDITS_MANIFEST}" CONTENT "[\n  ${edits_json}\n]\n" @ONLY)
  get_property(tests GLOBAL PROPERTY TILEPERF_EDIT_TESTS)
  list(JOIN TILEPERF_ARCHS "," archs)
  add_test(NAME mutants.catch_rate
    COMMAND tileperf::tileperf edit-report --manifest "${_TILEPERF_EDITS_MANIFEST}"
      --work-dir "${TILEPERF_SELFTEST_DIR}" --archs "${archs}")
  set_tests_properties(mutants.catch_rate PROPERTIES
    LABELS "selftest;mutant;noop" DEPENDS "${tests}")
  # The same verdicts fail on a wrong expectation: gelu_exact_tanh's real
  # results, judged as if the patch expected spills.
  set(wrong "${TILEPERF_SELFTEST_DIR}/edits-wrong-expectation.json")
  file(CONFIGURE OUTPUT "${wrong}" CONTENT
    "[{\"name\": \"gelu_exact_tanh\", \"kind\": \"mutant\", \"expect\": [\"local.bytes\"], \"configs\": [\"f16_1024\"]}]\n")
  add_test(NAME mutants.wrong_expectation_fails
    COMMAND "${CMAKE_COMMAND}" -DEXPECT_EXIT=3
      "-DEXPECT_OUTPUT=FAIL mutant gelu_exact_tanh \\(expect: local.bytes\\)\n      f16_1024.sm_120: escaped \\(local.bytes neither over its limit nor in a broken check; state regressed\\)"
      -P "${TILEPERF_EXPECT_RUN}" --
      $<TARGET_FILE:tileperf> edit-report --manifest "${wrong}"
      --work-dir "${TILEPERF_SELFTEST_DIR}" --archs "${archs}")
  set_tests_properties(mutants.wrong_expectation_fails PROPERTIES
    LABELS "selftest;mutant" DEPENDS "${tests}")
endfunction()
