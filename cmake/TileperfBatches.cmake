# TileperfBatches: the dump and compile batches, which export and compile
# ahead of the per-test steps, and the dump test of a kernel file.
include_guard(GLOBAL)

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

# _tileperf_add_to_list(<property> <file> <format> <record>): adds <record>
#   to the batch list whose records the GLOBAL property <property> holds
#   (once), and writes <file> with every record added so far. Properties
#   start empty at each configure, so the first registration of a configure
#   writes the list afresh, each further one rewrites it whole, and the last
#   leaves it complete: the records of this configure's registrations, no
#   earlier one's. A list whose text is unchanged is left alone.
function(_tileperf_add_to_list property file format record)
  get_property(records GLOBAL PROPERTY ${property})
  if(record IN_LIST records)
    return()
  endif()
  list(APPEND records "${record}")
  set_property(GLOBAL PROPERTY ${property} "${records}")
  _tileperf_write_list("${file}" "${format}" ${records})
endfunction()

# _tileperf_batch_dump(<group> <test> <pythonpath-list> <requires> <record>)
#   Adds a dump test's export to the batch of its group and PYTHONPATH: the
#   test dump.batch.<group> (dump.batch.<group>.2, ... for further PYTHONPATHs)
#   exports, in one Python that imports pytest and cuTile once, every kernel
#   file of the batch whose stamp is not current, before the dump tests run
#   (they then find their stamps current). Its list,
#   ${TILEPERF_WORK_DIR}/dump-batch.<group>.<n>.json, names each added
#   <record>, whose `dump_batch` entries the batch exports (written as each
#   is added: _tileperf_add_to_list). Sets <test>'s batch fixture
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
  _tileperf_work_path(list dump_batch "${id}")
  get_property(dir GLOBAL PROPERTY TILEPERF_DUMP_BATCH_DIR_${id})
  if(dir AND requires AND NOT dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    return()
  endif()
  if(NOT dir)
    set_property(GLOBAL PROPERTY TILEPERF_DUMP_BATCH_DIR_${id} "${CMAKE_CURRENT_SOURCE_DIR}")
    _tileperf_python(python ${folders})
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
  _tileperf_add_to_list(TILEPERF_DUMP_BATCH_RECORDS_${id} "${list}" tileperf-dump-batch/2 "${record}")
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
#   which the batch list ${TILEPERF_WORK_DIR}/compile-batch.json names,
#   written as each is added) to the compile batch: the test compile.batch
#   compiles, ahead of the checks, every configuration of the list the result
#   cache lacks (tileiras in parallel, a few nvdisasm calls per architecture)
#   and puts the tool output into the cache, where the checks find it. It is a fixture of every perf test,
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
    cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
    _tileperf_work_path(run run)
    add_test(NAME compile.batch COMMAND "$<TARGET_FILE:tileperf::tileperf>" batch --run-file "${run}")
    set_tests_properties(compile.batch PROPERTIES LABELS "perf" TIMEOUT 3600 PROCESSORS "${cores}"
      FIXTURES_SETUP tileperf.compile FIXTURES_REQUIRED "tileperf.toolchain;tileperf.run")
  endif()
  set_property(TEST compile.batch APPEND PROPERTY FIXTURES_REQUIRED "tileperf.dump.${kernel}")
  _tileperf_work_path(list compile_batch)
  _tileperf_add_to_list(TILEPERF_COMPILE_BATCH_RECORDS "${list}" tileperf-compile-batch/2 "${record}")
  set(${out} tileperf.compile PARENT_SCOPE)
endfunction()
