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
#   set: <name>           (optional, free text to the self-tests) the timing
#                         set the edit belongs to: tools/gpu/prepare_timing.sh
#                         --set <name> gathers that set alone (the unfitted
#                         edits, written and predicted before their timing:
#                         set: unfitted, tools/bench/unfitted_runtime.*)
# and optionally
#   archs: <arch>...      the architectures to check it on (default: all); a
#                         tuning change is judged by the launch model, which
#                         only sm_90's GPU has calibrated
# The headers are read by edits.py beside this file, which hands over every
# fact ready-made (edits.cmake in the self-test folder); this file registers.
include_guard(GLOBAL)

set(_TILEPERF_APPLY_PATCH "${CMAKE_CURRENT_LIST_DIR}/ApplyPatch.cmake")
set(_TILEPERF_EDITS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/edits.py")
find_program(TILEPERF_PATCH patch REQUIRED)

# _tileperf_read_edits(<folder-args>...): runs edits.py on the patch folders
#   (MUTANTS, NOOPS, VALIDATION) and includes what it wrote: tileperf_edits,
#   tileperf_edits_manifest (what each edit expects), tileperf_edits_record
#   (the dump batch's entries), and per edit tileperf_edit_<name>,
#   tileperf_edit_<name>_dump_args, tileperf_edit_<name>_checks and per check
#   tileperf_check_<test>.
macro(_tileperf_read_edits)
  set(_tileperf_args --selftest-dir "${TILEPERF_SELFTEST_DIR}" --baseline-dir "${TILEPERF_BASELINE_DIR}"
    --bytecode-version "${TILEPERF_BYTECODE_VERSION}")
  list(JOIN TILEPERF_ARCHS "," _tileperf_archs)
  list(APPEND _tileperf_args "--archs=${_tileperf_archs}")
  get_property(_tileperf_kernels GLOBAL PROPERTY TILEPERF_KERNELS)
  foreach(_tileperf_kernel IN LISTS _tileperf_kernels)
    get_property(_tileperf_source GLOBAL PROPERTY TILEPERF_KERNEL_SOURCE_${_tileperf_kernel})
    list(APPEND _tileperf_args --kernel "${_tileperf_kernel}=${_tileperf_source}")
  endforeach()
  foreach(_tileperf_folder IN ITEMS MUTANTS NOOPS VALIDATION)
    if(arg_${_tileperf_folder})
      string(TOLOWER "--${_tileperf_folder}" _tileperf_option)
      list(APPEND _tileperf_args "${_tileperf_option}" "${arg_${_tileperf_folder}}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${arg_${_tileperf_folder}}")
    endif()
  endforeach()
  _tileperf_python(_tileperf_py)
  execute_process(COMMAND ${_tileperf_py} "${_TILEPERF_EDITS_SCRIPT}" ${_tileperf_args}
    RESULT_VARIABLE _tileperf_rc ERROR_VARIABLE _tileperf_err OUTPUT_VARIABLE _tileperf_registration
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _tileperf_rc EQUAL 0)
    message(FATAL_ERROR "tileperf: ${_tileperf_err}")
  endif()
  include("${_tileperf_registration}")
endmacro()

# _tileperf_add_edit_test(<name>)
#   Registers edit.<name>.apply and dump.edit.<name>, then per configuration
#   and architecture <kind>.<name>.<cfg>.<arch> (mutant, noop, validation).
function(_tileperf_add_edit_test name)
  cmake_parse_arguments(e "" "KIND;KERNEL;PATCH;SOURCE;COPY;WORK;STAMP" "" ${tileperf_edit_${name}})
  add_test(NAME "edit.${name}.apply"
    COMMAND "${CMAKE_COMMAND}" "-DPATCH_PROGRAM=${TILEPERF_PATCH}" "-DSOURCE=${e_SOURCE}"
      "-DPATCH=${e_PATCH}" "-DOUTPUT=${e_COPY}" -P "${_TILEPERF_APPLY_PATCH}")
  set_tests_properties("edit.${name}.apply" PROPERTIES
    FIXTURES_SETUP "tileperf.edit.${name}" LABELS "selftest;edit")
  _tileperf_add_dump(NAME "dump.edit.${name}" STAMP "${e_STAMP}" FIXTURE "tileperf.dump.edit.${name}"
    RECORD "${tileperf_edits_record}" REQUIRES "tileperf.edit.${name}" LABELS selftest edit
    BATCH edits ARGS ${tileperf_edit_${name}_dump_args})
  foreach(test IN LISTS tileperf_edit_${name}_checks)
    cmake_parse_arguments(t "" "CONFIG;ARCH;BYTECODE;BASELINE" "" ${tileperf_check_${test}})
    # The edited copy's own files, against the shipped kernel's baseline;
    # the run record gives the rest.
    _tileperf_work_path(run run)
    add_test(NAME "${test}"
      COMMAND "$<TARGET_FILE:tileperf::tileperf>" check --run-file "${run}"
        --kernel "${e_KERNEL}" --config "${t_CONFIG}" --arch "${t_ARCH}" --bytecode "${t_BYTECODE}"
        --work-dir "${e_WORK}" --baseline "${t_BASELINE}"
        --edit "${name}" --edit-manifest "${tileperf_edits_manifest}")
    set_tests_properties("${test}" PROPERTIES LABELS "selftest;${e_KIND};${t_ARCH}"
      FIXTURES_REQUIRED "tileperf.dump.edit.${name};tileperf.toolchain;tileperf.run")
    set_property(GLOBAL APPEND PROPERTY TILEPERF_EDIT_TESTS "${test}")
  endforeach()
endfunction()

# tileperf_add_edit_tests(MUTANTS <dir> NOOPS <dir> [VALIDATION <dir>])
#   One _tileperf_add_edit_test per *.patch in the folders (mutant patches
#   must expect metrics, no-op patches "no change", validation patches
#   "measured"), then
#   `mutants.catch_rate`: after all of them, the share of mutant checks that
#   failed on the metrics they name, and of no-op checks that moved nothing.
function(tileperf_add_edit_tests)
  _tileperf_parse(tileperf_add_edit_tests "" "MUTANTS;NOOPS;VALIDATION" "" "MUTANTS;NOOPS" ${ARGN})
  _tileperf_read_edits()
  foreach(name IN LISTS tileperf_edits)
    _tileperf_add_edit_test("${name}")
  endforeach()
  get_property(tests GLOBAL PROPERTY TILEPERF_EDIT_TESTS)
  list(JOIN TILEPERF_ARCHS "," archs)
  add_test(NAME mutants.catch_rate
    COMMAND tileperf::tileperf edit-report --manifest "${tileperf_edits_manifest}"
      --work-dir "${TILEPERF_SELFTEST_DIR}" --archs "${archs}")
  set_tests_properties(mutants.catch_rate PROPERTIES
    LABELS "selftest;mutant;noop" DEPENDS "${tests}")
  # The same verdicts fail on a wrong expectation: gelu_exact_tanh's real
  # results, judged as if the patch expected spills.
  add_test(NAME mutants.wrong_expectation_fails
    COMMAND "${CMAKE_COMMAND}" -DEXPECT_EXIT=3
      "-DEXPECT_OUTPUT=FAIL mutant gelu_exact_tanh \\(expect: local.bytes\\)\n      f16_1024.sm_120: escaped \\(local.bytes neither over its limit nor in a broken invariant; state regressed\\)"
      -P "${TILEPERF_EXPECT_RUN}" --
      $<TARGET_FILE:tileperf> edit-report
      --manifest "${TILEPERF_TESTS_DIR}/fixtures/edits-wrong-expectation.json"
      --work-dir "${TILEPERF_SELFTEST_DIR}" --archs "${archs}")
  set_tests_properties(mutants.wrong_expectation_fails PROPERTIES
    LABELS "selftest;mutant" DEPENDS "${tests}")
endfunction()
