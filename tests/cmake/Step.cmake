# step(<name> <exit> <regex> <command>...): runs the command (cmake -P
# scripts of the tests), prints its output under "--- <name>", and stops
# the script unless it exits with <exit> and its output matches <regex>
# ("": any output). The output is left in `out` in the caller's scope.
function(step name want_exit regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("--- ${name}\n${out}")
  if(NOT rc STREQUAL "${want_exit}")
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${want_exit}")
  endif()
  if(NOT regex STREQUAL "" AND NOT out MATCHES "${regex}")
    message(FATAL_ERROR "${name}: output does not match ${regex}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
