# TileperfArguments: the arguments of the CMake API's functions: parsing, the
# name rule, repeated entries, and the checks and defaults of
# tileperf_add_kernel_tests's arguments.
include_guard(GLOBAL)

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
