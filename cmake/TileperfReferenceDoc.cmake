# Keeps the parts of docs/reference/ that the tileperf command prints in step
# with it (cmake -P): the --help of tileperf and of each of its subcommands
# (docs/reference/commands.md, part "commands") and its table of states
# (docs/reference/states.md, part "states").
#   cmake -DTILEPERF=<exe> -DDOCS=<docs folder> -DWORK=<folder> -DMODE=check|update -P TileperfReferenceDoc.cmake
# check: fail, naming the command that fixes it, when a part differs.
# update: rewrite the documents (atomically) with the parts.
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS TILEPERF DOCS WORK MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TileperfReferenceDoc.cmake: -D${var}=... is required")
  endif()
endforeach()

# The output of `tileperf ARGS...`, which must exit 0.
function(tileperf_output out)
  execute_process(COMMAND "${TILEPERF}" ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tileperf ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# One subcommand's section: its heading and its help as printed.
function(help_section out title)
  tileperf_output(text ${ARGN} --help)
  set(${out} "### ${title}\n\n```text\n${text}```\n\n" PARENT_SCOPE)
endfunction()

# The subcommands `tileperf --help` lists under `header` ("subcommands:",
# "internal subcommands ..."), in its order.
function(subcommands out help header)
  string(FIND "${help}" "\n${header}" start)
  string(SUBSTRING "${help}" ${start} -1 rest)
  string(FIND "${rest}" ":\n" colon)
  string(SUBSTRING "${rest}" ${colon} -1 rest)
  string(FIND "${rest}" "\n\n" stop)
  string(SUBSTRING "${rest}" 0 ${stop} listing)
  string(REGEX MATCHALL "\n  [a-z][a-z-]*" names "${listing}")
  list(TRANSFORM names STRIP)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

tileperf_output(help --help)
set(commands "### tileperf\n\n```text\n${help}```\n\n")
subcommands(names "${help}" "subcommands:")
subcommands(internal "${help}" "internal subcommands")
foreach(name IN LISTS names internal)
  help_section(section "tileperf ${name}" ${name})
  string(APPEND commands "${section}")
endforeach()
tileperf_output(states states)
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/commands.md" "${commands}")
file(WRITE "${WORK}/states.md" "${states}")

set(failed "")
foreach(part IN ITEMS commands states)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DDOC=${DOCS}/reference/${part}.md -DNAME=${part}
    -DGENERATED=${WORK}/${part}.md -DMODE=${MODE} -P "${CMAKE_CURRENT_LIST_DIR}/TileperfSpliceDoc.cmake"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(APPEND failed ${part})
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "docs/reference: part(s) out of date with the tileperf command: ${failed}")
endif()
