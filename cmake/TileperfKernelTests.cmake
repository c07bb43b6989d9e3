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

# Everything the functions below read lives in the cache, so that they work
# from any directory scope (add_subdirectory puts tileperf in a scope of its
# own; the functions run in the caller's).
set(_TILEPERF_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "")
set(TILEPERF_WORK_DIR "${CMAKE_BINARY_DIR}/tileperf" CACHE INTERNAL "")
if(NOT TILEPERF_DEFAULT_CHECKS_DIR)
  message(FATAL_ERROR "tileperf: TILEPERF_DEFAULT_CHECKS_DIR is not set; use tileperf through "
    "find_package(tileperf) or add_subdirectory(<tileperf source>)")
endif()
if(EXISTS "${CMAKE_SOURCE_DIR}/checks/default.json")
  set(_tileperf_checks "${CMAKE_SOURCE_DIR}/checks")
else()
  set(_tileperf_checks "${TILEPERF_DEFAULT_CHECKS_DIR}")
endif()
# The defaults and rules the Python package shares (tileperf_dump/defaults.json):
# _TILEPERF_NAME_PATTERN, _TILEPERF_ARCH_PATTERN, _TILEPERF_BYTECODE_VERSION and
# TILEPERF_SKIP_EXIT_CODE, the exit code of a test that could not run.
file(READ "${TILEPERF_PYTHON_DIR}/tileperf_dump/defaults.json" _tileperf_defaults)
foreach(_tileperf_key IN ITEMS name_pattern arch_pattern bytecode_version skip_exit_code)
  string(TOUPPER "_TILEPERF_${_tileperf_key}" _tileperf_var)
  string(JSON _tileperf_value GET "${_tileperf_defaults}" ${_tileperf_key})
  set(${_tileperf_var} "${_tileperf_value}" CACHE INTERNAL "")
endforeach()
set(TILEPERF_SKIP_EXIT_CODE "${_TILEPERF_SKIP_EXIT_CODE}" CACHE INTERNAL "")
# The work folder's file names: tileperf_dump/work_paths.json, the one path
# table the tileperf command and the Python package read too. Each kind of
# the work folder's root becomes _TILEPERF_PATH_<kind>, its template.
file(READ "${TILEPERF_PYTHON_DIR}/tileperf_dump/work_paths.json" _tileperf_paths)
string(JSON _tileperf_count LENGTH "${_tileperf_paths}" kinds)
math(EXPR _tileperf_count "${_tileperf_count} - 1")
foreach(_tileperf_i RANGE ${_tileperf_count})
  string(JSON _tileperf_kind GET "${_tileperf_paths}" kinds ${_tileperf_i} kind)
  string(JSON _tileperf_root GET "${_tileperf_paths}" kinds ${_tileperf_i} root)
  string(JSON _tileperf_path GET "${_tileperf_paths}" kinds ${_tileperf_i} path)
  if(_tileperf_root STREQUAL "work")
    set(_TILEPERF_PATH_${_tileperf_kind} "${_tileperf_path}" CACHE INTERNAL "")
  endif()
endforeach()

set(TILEPERF_BASELINE_DIR "${CMAKE_SOURCE_DIR}/baselines" CACHE PATH "tileperf baselines")
set(TILEPERF_CHECKS_DIR "${_tileperf_checks}" CACHE PATH "tileperf policy files")
set(TILEPERF_ARCHS "sm_120;sm_100;sm_90" CACHE STRING
  "Architectures each kernel configuration is checked for")
set(TILEPERF_BYTECODE_VERSION "${_TILEPERF_BYTECODE_VERSION}" CACHE STRING
  "TileIR bytecode version the dump step writes")
set(TILEPERF_TOOL_TIMEOUT "120" CACHE STRING "Seconds before tileiras or cuobjdump counts as hung")
set(TILEPERF_MANIFEST_TIMEOUT "300" CACHE STRING
  "Seconds a kernel file's import may take at configure time before configure stops")
if(NOT TILEPERF_MANIFEST_TIMEOUT MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "TILEPERF_MANIFEST_TIMEOUT '${TILEPERF_MANIFEST_TIMEOUT}' must be a whole number of seconds")
endif()
set(TILEPERF_CACHE_DIR "${TILEPERF_WORK_DIR}/${_TILEPERF_PATH_cache}" CACHE STRING
  "Result cache of the perf tests (a shared folder for several builds or CI jobs; off: none)")
if(TILEPERF_CACHE_DIR STREQUAL "off" OR TILEPERF_CACHE_DIR STREQUAL "OFF")
  set(TILEPERF_CACHE_DIR "off")
endif()
option(TILEPERF_STRICT "Fail perf tests whose baselines are stale (improved beyond tolerance)" OFF)
option(TILEPERF_MEASUREMENTS "Print each gated metric as a CTest measurement (for CDash)" OFF)
option(TILEPERF_REQUIRE_RUN "Fail perf tests that cannot run (a tool or architecture missing) \
instead of skipping them; also the default behaviour when CI is set" OFF)

find_package(CudaTile)
find_package(Tileiras)
find_package(Cuobjdump)

set(_TILEPERF_MISSING "")
foreach(pkg IN ITEMS CudaTile Tileiras Cuobjdump)
  if(NOT ${pkg}_FOUND)
    list(APPEND _TILEPERF_MISSING "${pkg}")
  endif()
endforeach()
set(_TILEPERF_MISSING "${_TILEPERF_MISSING}" CACHE INTERNAL "")
if(_TILEPERF_MISSING)
  list(JOIN _TILEPERF_MISSING ", " _tileperf_missing_text)
  message(WARNING "tileperf: ${_tileperf_missing_text} not found (see the messages above); "
    "the perf tests will be reported as not run. tools/run check installs everything.")
endif()

# _tileperf_work_path(<out-var> <kind> [<part>]): the path of a file of the
#   run's work folder (one of work_paths.json's kinds without a kernel).
function(_tileperf_work_path out kind)
  if(NOT DEFINED _TILEPERF_PATH_${kind})
    message(FATAL_ERROR "tileperf: '${kind}' is not a kind of work_paths.json")
  endif()
  set(path "${_TILEPERF_PATH_${kind}}")
  if(ARGC GREATER 2)
    string(REPLACE "{part}" "${ARGV2}" path "${path}")
  endif()
  if(path MATCHES "{")
    message(FATAL_ERROR "tileperf: the work path '${path}' of kind '${kind}' needs more fields")
  endif()
  set(${out} "${TILEPERF_WORK_DIR}/${path}" PARENT_SCOPE)
endfunction()

# _tileperf_check_name(<what> <value>): stop unless value follows the name rule.
function(_tileperf_check_name what value)
  if(NOT value MATCHES "^${_TILEPERF_NAME_PATTERN}$")
    message(FATAL_ERROR "tileperf: ${what} name '${value}' must match ${_TILEPERF_NAME_PATTERN}")
  endif()
endfunction()

# _tileperf_check_unique(<what> <list...>): stop on a repeated entry.
function(_tileperf_check_unique what)
  set(seen "")
  foreach(item IN LISTS ARGN)
    if(item IN_LIST seen)
      message(FATAL_ERROR "tileperf: ${what} '${item}' is listed twice")
    endif()
    list(APPEND seen "${item}")
  endforeach()
endfunction()

# _tileperf_parse(<function> <options> <one-value> <multi-value> <required> ARGN)
#   cmake_parse_arguments into arg_*, stopping on unknown keywords, keywords
#   without values and missing required keywords.
macro(_tileperf_parse fn options one multi required)
  cmake_parse_arguments(arg "${options}" "${one}" "${multi}" ${ARGN})
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unknown argument(s): ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${fn}: keyword(s) without a value: ${arg_KEYWORDS_MISSING_VALUES}")
  endif()
  foreach(_tileperf_kw IN ITEMS ${required})
    if(NOT DEFINED arg_${_tileperf_kw})
      message(FATAL_ERROR "${fn}: required argument ${_tileperf_kw} is missing")
    endif()
  endforeach()
  # A misspelled keyword after a list keyword (CONFIGS a CONFIG b) would
  # silently become a value: stop on capitalised values that start like a keyword.
  foreach(_tileperf_kw IN ITEMS ${multi})
    foreach(_tileperf_value IN LISTS arg_${_tileperf_kw})
      if(_tileperf_value MATCHES "^[A-Z][A-Z_]+$")
        string(SUBSTRING "${_tileperf_value}" 0 4 _tileperf_stem)
        foreach(_tileperf_known IN ITEMS ${options} ${one} ${multi})
          string(SUBSTRING "${_tileperf_known}" 0 4 _tileperf_known_stem)
          if(_tileperf_stem STREQUAL _tileperf_known_stem)
            message(FATAL_ERROR "${fn}: '${_tileperf_value}' among the values of "
              "${_tileperf_kw} looks like a misspelled keyword (did you mean ${_tileperf_known}?)")
          endif()
        endforeach()
      endif()
    endforeach()
  endforeach()
endmacro()

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

# _tileperf_python(<var> <dir>...): the command that runs the dump step's
#   Python with tileperf_dump's folder, then the given folders, on PYTHONPATH.
function(_tileperf_python out)
  string(JOIN ":" path "${TILEPERF_PYTHON_DIR}" ${ARGN})
  set(${out} "${CMAKE_COMMAND}" -E env --unset=CUDA_HOME "PYTHONPATH=${path}" "${TILEPERF_PYTHON}"
    PARENT_SCOPE)
endfunction()

# _tileperf_write_list(<file> <format> <record>...): writes a batch list,
#   {"format": <format>, "records": [<record>...]}: the registrations'
#   records, whose entries the batch step reads itself. Atomic (written
#   beside, then renamed), and left alone when unchanged.
function(_tileperf_write_list file format)
  set(records "")
  foreach(record IN LISTS ARGN)
    string(REPLACE "\\" "\\\\" record "${record}")
    string(REPLACE "\"" "\\\"" record "${record}")
    list(APPEND records "\n    \"${record}\"")
  endforeach()
  list(JOIN records "," records)
  set(text "{\n  \"format\": \"${format}\",\n  \"records\": [${records}\n  ]\n}\n")
  if(EXISTS "${file}")
    file(READ "${file}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${file}.tmp" "${text}")
  file(RENAME "${file}.tmp" "${file}")
endfunction()

# _tileperf_write_batches(): writes the batch lists of the records the
#   registrations listed, once, when the project's configure is done
#   (deferred by _tileperf_defer_batches).
function(_tileperf_write_batches)
  get_property(ids GLOBAL PROPERTY TILEPERF_DUMP_BATCH_IDS)
  foreach(id IN LISTS ids)
    get_property(records GLOBAL PROPERTY TILEPERF_DUMP_BATCH_RECORDS_${id})
    _tileperf_work_path(list dump_batch "${id}")
    _tileperf_write_list("${list}" tileperf-dump-batch/2 ${records})
  endforeach()
  get_property(records GLOBAL PROPERTY TILEPERF_COMPILE_BATCH_RECORDS)
  if(records)
    _tileperf_work_path(list compile_batch)
    _tileperf_write_list("${list}" tileperf-compile-batch/2 ${records})
  endif()
endfunction()

# _tileperf_defer_batches(): has _tileperf_write_batches run at the end of
#   the project's configure (once).
function(_tileperf_defer_batches)
  get_property(deferred GLOBAL PROPERTY TILEPERF_BATCHES_DEFERRED)
  if(NOT deferred)
    set_property(GLOBAL PROPERTY TILEPERF_BATCHES_DEFERRED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _tileperf_write_batches)
  endif()
endfunction()

# _tileperf_batch_dump(<group> <test> <pythonpath-list> <requires> <record>)
#   Adds a dump test's export to the batch of its group and PYTHONPATH: the
#   test dump.batch.<group> (dump.batch.<group>.2, ... for further PYTHONPATHs)
#   exports, in one Python that imports pytest and cuTile once, every kernel
#   file of the batch whose stamp is not current, before the dump tests run
#   (they then find their stamps current). Its list,
#   ${TILEPERF_WORK_DIR}/dump-batch.<group>.<n>.json, names each added
#   <record>, whose `dump_batch` entries the batch exports. Sets <test>'s batch fixture
#   in the caller's scope variable _tileperf_batch_fixture ("" when the
#   export stays the test's own: a prerequisite the batch test, added in
#   another folder, cannot be given).
function(_tileperf_batch_dump group test folders requires record)
  set(_tileperf_batch_fixture "" PARENT_SCOPE)
  string(JOIN ":" pythonpath "${TILEPERF_PYTHON_DIR}" ${folders})
  get_property(paths GLOBAL PROPERTY TILEPERF_DUMP_BATCH_PATHS_${group})
  list(FIND paths "${pythonpath}" index)
  if(index EQUAL -1)
    list(LENGTH paths index)
    set_property(GLOBAL APPEND PROPERTY TILEPERF_DUMP_BATCH_PATHS_${group} "${pythonpath}")
  endif()
  math(EXPR n "${index} + 1")
  set(id "${group}.${n}")
  set(name "dump.batch.${group}")
  if(n GREATER 1)
    set(name "${name}.${n}")
  endif()
  get_property(dir GLOBAL PROPERTY TILEPERF_DUMP_BATCH_DIR_${id})
  if(dir AND requires AND NOT dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    return()
  endif()
  if(NOT dir)
    set_property(GLOBAL PROPERTY TILEPERF_DUMP_BATCH_DIR_${id} "${CMAKE_CURRENT_SOURCE_DIR}")
    set_property(GLOBAL APPEND PROPERTY TILEPERF_DUMP_BATCH_IDS "${id}")
    _tileperf_defer_batches()
    _tileperf_python(python ${folders})
    _tileperf_work_path(list dump_batch "${id}")
    _tileperf_work_path(run run)
    add_test(NAME "${name}"
      COMMAND ${python} "${TILEPERF_PYTHON_DIR}/tileperf_dump/run_dump.py" --batch "${list}" --run-file "${run}")
    set(labels selftest dump)
    if(group STREQUAL "kernels")
      set(labels perf dump)
    endif()
    set_tests_properties("${name}" PROPERTIES
      FIXTURES_SETUP "tileperf.dump.batch.${id}" LABELS "${labels}" TIMEOUT 1800
      FIXTURES_REQUIRED tileperf.run)
  endif()
  if(requires)
    set_property(TEST "${name}" APPEND PROPERTY FIXTURES_REQUIRED "${requires}")
  endif()
  get_property(records GLOBAL PROPERTY TILEPERF_DUMP_BATCH_RECORDS_${id})
  if(NOT record IN_LIST records)
    set_property(GLOBAL APPEND PROPERTY TILEPERF_DUMP_BATCH_RECORDS_${id} "${record}")
  endif()
  set(_tileperf_batch_fixture "tileperf.dump.batch.${id}" PARENT_SCOPE)
endfunction()

# _tileperf_add_dump(NAME <test> STAMP <file> FIXTURE <fixture> RECORD <file>
#                    LABELS <label>... [REQUIRES <fixture>] [PYTHONPATH <dir>...]
#                    [BATCH <group>] ARGS <pytest-arg>...)
#   A test that exports a kernel file's configurations through pytest with
#   the ARGS the registration made (tileperf_dump.manifest), unless STAMP
#   shows that nothing deciding the bytecode changed (see
#   tools/tileperf_dump/run_dump.py). It sets up FIXTURE for the tests that
#   compile the bytecode. The export is done ahead by the batch of <group>
#   (default: kernels), whose entry is in RECORD; see _tileperf_batch_dump.
function(_tileperf_add_dump)
  _tileperf_parse(_tileperf_add_dump "" "NAME;STAMP;FIXTURE;RECORD;REQUIRES;BATCH"
    "LABELS;PYTHONPATH;ARGS" "NAME;STAMP;FIXTURE;RECORD;ARGS" ${ARGN})
  if(NOT arg_BATCH)
    set(arg_BATCH kernels)
  endif()
  _tileperf_python(python ${arg_PYTHONPATH})
  _tileperf_work_path(run run)
  # Done at once when the run's dump batch found the stamp current (no
  # Python start), else the export.
  add_test(NAME "${arg_NAME}"
    COMMAND "$<TARGET_FILE:tileperf::tileperf>" dump --stamp "${arg_STAMP}" --run-file "${run}" --
      ${python} "${TILEPERF_PYTHON_DIR}/tileperf_dump/run_dump.py" --stamp "${arg_STAMP}" -- ${arg_ARGS})
  _tileperf_batch_dump("${arg_BATCH}" "${arg_NAME}" "${arg_PYTHONPATH}" "${arg_REQUIRES}" "${arg_RECORD}")
  set(required ${arg_REQUIRES} ${_tileperf_batch_fixture} tileperf.run)
  set_tests_properties("${arg_NAME}" PROPERTIES
    FIXTURES_SETUP "${arg_FIXTURE}" LABELS "${arg_LABELS}" TIMEOUT 600 FIXTURES_REQUIRED "${required}")
endfunction()

# _tileperf_batch_compile(<fixture-var> <kernel> <record>)
#   Adds a kernel's perf tests (the `compile_batch` entries of its record,
#   which the batch list names) to the compile batch: the test compile.batch compiles, ahead of the checks,
#   every configuration of the list the result cache lacks (tileiras in
#   parallel, a few nvdisasm calls per architecture) and puts the tool output into
#   the cache, where the checks find it. It is a fixture of every perf test,
#   and compiles only for the tests the ctest that runs it selected (`ctest
#   -R`, `-L sm_90`, one shard `-I k,,N`; see tools/src/toolchain/ctest_selection.h).
#   Kernels registered in another folder than the first stay out of the
#   batch (a prerequisite of a test in another folder cannot be given), as
#   with the dump batch. Sets <fixture-var> to the batch's fixture, or "".
function(_tileperf_batch_compile out kernel record)
  set(${out} "" PARENT_SCOPE)
  get_property(dir GLOBAL PROPERTY TILEPERF_COMPILE_BATCH_DIR)
  if(TILEPERF_CACHE_DIR STREQUAL "off" OR (dir AND NOT dir STREQUAL CMAKE_CURRENT_SOURCE_DIR))
    return()
  endif()
  if(NOT dir)
    set_property(GLOBAL PROPERTY TILEPERF_COMPILE_BATCH_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    _tileperf_defer_batches()
    cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
    _tileperf_work_path(run run)
    add_test(NAME compile.batch COMMAND "$<TARGET_FILE:tileperf::tileperf>" batch --run-file "${run}")
    set_tests_properties(compile.batch PROPERTIES LABELS "perf" TIMEOUT 3600 PROCESSORS "${cores}"
      FIXTURES_SETUP tileperf.compile FIXTURES_REQUIRED "tileperf.toolchain;tileperf.run")
  endif()
  set_property(TEST compile.batch APPEND PROPERTY FIXTURES_REQUIRED "tileperf.dump.${kernel}")
  set_property(GLOBAL APPEND PROPERTY TILEPERF_COMPILE_BATCH_RECORDS "${record}")
  set(${out} tileperf.compile PARENT_SCOPE)
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

# _tileperf_default(<var> <value>...): sets <var> unless it is defined.
macro(_tileperf_default var)
  if(NOT DEFINED ${var})
    set(${var} ${ARGN})
  endif()
endmacro()

# _tileperf_kernel_arguments(): checks the arguments of tileperf_add_kernel_tests
#   (arg_*) and fills in their defaults; sets kernel, source and pythonpath
#   (absolute folders).
macro(_tileperf_kernel_arguments)
  if(DEFINED arg_CONFIGS OR "CONFIGS" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "tileperf_add_kernel_tests: CONFIGS is not an argument: every "
      "configuration of the kernel file's CONFIGS is tested (the file is their one list)")
  endif()
  set(kernel "${arg_KERNEL}")
  _tileperf_check_name(kernel "${kernel}")
  _tileperf_default(arg_ARCHS ${TILEPERF_ARCHS})
  _tileperf_default(arg_SOURCE "${kernel}.py")
  _tileperf_default(arg_BASELINE_DIR "${TILEPERF_BASELINE_DIR}/${kernel}")
  _tileperf_default(arg_CHECKS_DIR "${TILEPERF_CHECKS_DIR}")
  foreach(arch IN LISTS arg_ARCHS)
    if(NOT arch MATCHES "^${_TILEPERF_ARCH_PATTERN}$")
      message(FATAL_ERROR "tileperf_add_kernel_tests: architecture '${arch}' must look like sm_120")
    endif()
  endforeach()
  _tileperf_check_unique("architecture" ${arg_ARCHS})
  get_property(_tileperf_kernels GLOBAL PROPERTY TILEPERF_KERNELS)
  if(kernel IN_LIST _tileperf_kernels)
    message(FATAL_ERROR "tileperf_add_kernel_tests: kernel '${kernel}' is registered twice")
  endif()
  get_filename_component(source "${arg_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "tileperf_add_kernel_tests: SOURCE '${source}' does not exist")
  endif()
  set(pythonpath "")
  foreach(dir IN LISTS arg_PYTHONPATH)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${dir}")
      message(FATAL_ERROR "tileperf_add_kernel_tests: PYTHONPATH folder '${dir}' does not exist")
    endif()
    list(APPEND pythonpath "${dir}")
  endforeach()
  foreach(kind IN ITEMS PLACEHOLDER_MODULES BARE_PACKAGES)
    foreach(module IN LISTS arg_${kind})
      if(NOT module MATCHES "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$")
        message(FATAL_ERROR "tileperf_add_kernel_tests: ${kind} entry '${module}' is not "
          "a module name (like torch or mylib._C)")
      endif()
    endforeach()
  endforeach()
endmacro()

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
