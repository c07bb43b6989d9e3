# TileperfSettings: the settings of the CMake API (the cache variables that
# TileperfKernelTests.cmake lists), the defaults and the work folder's path
# table it shares with the tileperf command and the Python package, the
# toolchain's Find modules, and the paths and Python command made from them.
include_guard(GLOBAL)

# Everything the functions of the CMake API read lives in the cache, so that
# they work from any directory scope (add_subdirectory puts tileperf in a
# scope of its own; the functions run in the caller's).
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

# _tileperf_python(<var> <dir>...): the command that runs the dump step's
#   Python with tileperf_dump's folder, then the given folders, on PYTHONPATH.
function(_tileperf_python out)
  string(JOIN ":" path "${TILEPERF_PYTHON_DIR}" ${ARGN})
  set(${out} "${CMAKE_COMMAND}" -E env --unset=CUDA_HOME "PYTHONPATH=${path}" "${TILEPERF_PYTHON}"
    PARENT_SCOPE)
endfunction()
