# Tests of `tileperf diff` (included by tests/CMakeLists.txt): bad input on
# the command line, and the diff of real builds of two kernels and their
# mutants (tests/cmake/Diff.cmake).
tileperf_cli_test(diff_no_folder 2
  "^tileperf: error: [^\n]*/no-such-build: base is not a folder \\(give a build folder or its tileperf/ folder\\)\n$"
  diff "${_cli_work}/no-such-build" "${_fixtures}")
tileperf_cli_test(diff_no_results 2
  "^tileperf: error: [^\n]*/fixtures/13\\.4\\.92: no test results \\(\\*\\.metrics\\.json\\) in the base folder or the folders in it: has the gate run there\\?\n$"
  diff "${_fixtures}" "${CMAKE_CURRENT_SOURCE_DIR}/fixtures/results")
tileperf_cli_test(diff_bad_regex 2 "^tileperf: error: diff: --test: '\\(' is not a regular expression: "
  diff "${_fixtures}" "${_fixtures}" --test "(")

if(NOT _TILEPERF_MISSING)
  set(_diff_mutant matmul_smaller_tile)
  add_test(NAME diff.mutants
    COMMAND "${CMAKE_COMMAND}" "-DTILEPERF=$<TARGET_FILE:tileperf>"
      "-DTILEIRAS=${Tileiras_EXECUTABLE}" "-DCUOBJDUMP=${Cuobjdump_EXECUTABLE}"
      "-DCHECKS=${TILEPERF_CHECKS_DIR}" "-DWORK=${_cli_work}/diff"
      "-DGELU=${TILEPERF_WORK_DIR}/gelu/f16_1024.tileirbc"
      "-DGELU_MUTANT=${TILEPERF_SELFTEST_DIR}/gelu_exact_tanh/f16_1024.tileirbc"
      "-DMATMUL=${TILEPERF_WORK_DIR}/matmul/f16_128x128x64.tileirbc"
      "-DMATMUL_MUTANT=${TILEPERF_SELFTEST_DIR}/${_diff_mutant}/f16_128x128x64.tileirbc"
      -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/Diff.cmake")
  set_tests_properties(diff.mutants PROPERTIES LABELS "selftest;cli;diff" TIMEOUT 600
    FIXTURES_REQUIRED "tileperf.dump.gelu;tileperf.dump.matmul;tileperf.dump.edit.gelu_exact_tanh;tileperf.dump.edit.${_diff_mutant}")
endif()
