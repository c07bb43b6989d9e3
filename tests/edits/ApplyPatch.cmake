# Applies a patch to a copy of a file (cmake -P), exactly: no fuzz, no
# reversed hunks, no reject files.
#   cmake -DPATCH_PROGRAM=<patch> -DSOURCE=<file> -DPATCH=<diff> -DOUTPUT=<file> -P ApplyPatch.cmake
cmake_minimum_required(VERSION 3.25)
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
execute_process(
  COMMAND "${PATCH_PROGRAM}" --silent --fuzz=0 --forward --reject-file=- -o "${OUTPUT}"
    "${SOURCE}" "${PATCH}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PATCH} does not apply to ${SOURCE} (patch: exit ${rc}):\n${out}")
endif()
