# Keeps a generated part of a document in step with its source (cmake -P).
# The part sits between the lines "<!-- BEGIN <name> -->" and
# "<!-- END <name> -->" of DOC; GENERATED is the file holding what belongs there.
#   cmake -DDOC=README.md -DNAME=kernels -DGENERATED=<file> -DMODE=check|update -P TileperfSpliceDoc.cmake
# check: fail, naming the command that fixes it, when the part differs.
# update: rewrite DOC (atomically) with the generated part.
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS DOC NAME GENERATED MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TileperfSpliceDoc.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${DOC}" doc)
file(READ "${GENERATED}" generated)
set(begin "<!-- BEGIN ${NAME} -->\n")
set(end "<!-- END ${NAME} -->")
string(FIND "${doc}" "${begin}" b)
string(FIND "${doc}" "${end}" e)
if(b EQUAL -1 OR e EQUAL -1 OR e LESS b)
  message(FATAL_ERROR "${DOC}: markers '<!-- BEGIN ${NAME} -->' and '${end}' not found in order")
endif()
string(LENGTH "${begin}" begin_length)
math(EXPR inner_start "${b} + ${begin_length}")
math(EXPR inner_length "${e} - ${inner_start}")
string(SUBSTRING "${doc}" ${inner_start} ${inner_length} current)
if(current STREQUAL generated)
  return()
endif()
if(MODE STREQUAL "check")
  message(FATAL_ERROR "${DOC}: the '${NAME}' section is out of date; "
    "regenerate it with: cmake --build <build-dir> --target update_docs")
endif()
string(SUBSTRING "${doc}" 0 ${inner_start} head)
string(SUBSTRING "${doc}" ${e} -1 tail)
file(WRITE "${DOC}.tmp" "${head}${generated}${tail}")
file(RENAME "${DOC}.tmp" "${DOC}")
message(STATUS "${DOC}: '${NAME}' section updated")
