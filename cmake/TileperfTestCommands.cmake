# TileperfTestCommands: the commands of the perf tests (a check, or a test
# that cannot run) and the two tests every perf test needs first, once per
# project: toolchain.probe and run.start.
include_guard(GLOBAL)

# _tileperf_not_run_command(<out-var> <test> <kernel> <config>): the command of a test
# that cannot run: it says which tools configure did not find, and is
# skipped (CTest: Not Run), or fails where every test must run
# (TILEPERF_REQUIRE_RUN, which the run record keeps, or CI set when the test
# runs).
function(_tileperf_not_run_command out test kernel config)
  _tileperf_work_path(run run)
  if(config STREQUAL "unlisted")  # the kernel file could not be listed: its error, a failure
    get_property(why GLOBAL PROPERTY TILEPERF_KERNEL_UNLISTED_${kernel})
    set(${out} "$<TARGET_FILE:tileperf::tileperf>" not-run --bad-input --run-file "${run}" --test "${test}"
      --reason "the configurations of ${kernel} could not be listed when the project was configured: ${why}"
      PARENT_SCOPE)
    return()
  endif()
  list(JOIN _TILEPERF_MISSING ", " missing)
  set(what "nothing was measured")
  if(config STREQUAL "configs_unknown")
    set(what "the configurations of ${kernel} could not be listed and nothing was measured")
  endif()
  set(${out} "$<TARGET_FILE:tileperf::tileperf>" not-run --run-file "${run}" --test "${test}"
    --reason "${missing} not found when the project was configured (see the configure log for what to install), so ${what}"
    PARENT_SCOPE)
endfunction()

# _tileperf_check_command(<out-var> <test> [<arg>...]): the `tileperf check`
#   command line of one test: the run record and the test's name, from which
#   the check finds the rest (its kernel's record, through the path table).
function(_tileperf_check_command out test)
  _tileperf_work_path(run run)
  set(${out} "$<TARGET_FILE:tileperf::tileperf>" check --run-file "${run}" --test "${test}" ${ARGN}
    PARENT_SCOPE)
endfunction()

# _tileperf_add_toolchain_probe(): the test `toolchain.probe` (once per
# project), a fixture of every perf test: `tileperf toolchain` asks each tool
# its release once per run (or keeps the record of unchanged tools), and every
# check reads that record.
function(_tileperf_add_toolchain_probe)
  get_property(added GLOBAL PROPERTY TILEPERF_TOOLCHAIN_PROBE)
  if(added OR _TILEPERF_MISSING)
    return()
  endif()
  set_property(GLOBAL PROPERTY TILEPERF_TOOLCHAIN_PROBE TRUE)
  _tileperf_work_path(toolchain toolchain)
  add_test(NAME toolchain.probe
    COMMAND tileperf::tileperf toolchain --tileiras "${Tileiras_EXECUTABLE}"
      --cuobjdump "${Cuobjdump_EXECUTABLE}" --out "${toolchain}")
  set_tests_properties(toolchain.probe PROPERTIES
    FIXTURES_SETUP tileperf.toolchain LABELS "perf;toolchain" TIMEOUT 120)
endfunction()

# _tileperf_add_run_start(): the test `run.start` (once per project), a
# fixture of every perf test: it writes ${TILEPERF_WORK_DIR}/run.json, the
# one record of the run's shared facts: a new run id (TILEPERF_RUN_ID when
# set), which each check stamps on its result, so that `tileperf summary`
# and `report` tell this run's results from those an earlier, partial run
# left behind; the project, build and work folders, the toolchain record,
# the cache, the tool timeout, the policy folder, the command that updates
# the baselines, and the settings strict, require-run and measurements.
# Each check, the batches and `tileperf diff` read them from it.
function(_tileperf_add_run_start)
  get_property(added GLOBAL PROPERTY TILEPERF_RUN_START)
  if(added)
    return()
  endif()
  set_property(GLOBAL PROPERTY TILEPERF_RUN_START TRUE)
  # The update command runs from the project's folder: the build folder relative to it.
  file(RELATIVE_PATH build_dir "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}")
  if(build_dir STREQUAL "")
    set(build_dir .)
  endif()
  _tileperf_work_path(toolchain toolchain)
  set(settings "")
  foreach(setting IN ITEMS STRICT REQUIRE_RUN MEASUREMENTS)
    if(TILEPERF_${setting})
      string(TOLOWER "--${setting}" option)
      string(REPLACE "_" "-" option "${option}")
      list(APPEND settings "${option}")
    endif()
  endforeach()
  add_test(NAME run.start
    COMMAND tileperf::tileperf run-start --work-dir "${TILEPERF_WORK_DIR}"
      --project-dir "${CMAKE_SOURCE_DIR}" --build-dir "${CMAKE_BINARY_DIR}"
      --toolchain "${toolchain}" --cache-dir "${TILEPERF_CACHE_DIR}" --timeout "${TILEPERF_TOOL_TIMEOUT}"
      --checks "${TILEPERF_CHECKS_DIR}"
      --update-command "cmake --build ${build_dir} --target update_baselines" ${settings})
  set_tests_properties(run.start PROPERTIES FIXTURES_SETUP tileperf.run LABELS perf TIMEOUT 60)
endfunction()
