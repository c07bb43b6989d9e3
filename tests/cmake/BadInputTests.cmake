# Hostile inputs and failing tools on the command line.
#
# Every file under tests/bad_inputs/ (written by its generate.py) is given to
# tileperf as the input of its kind; each test checks exit code 2 and that
# the message names the file and the place (line, key or byte). Then `check`
# with fake tools that crash, hang, flood, lie or cut their output, and a
# tileperf interrupted while a tool runs.
set(_bad "${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs")
set(_good "${CMAKE_CURRENT_SOURCE_DIR}/fixtures/13.4.92/gelu.f16_1024.sm_120")
set(_good_extract --cubin "${_good}.cubin" --sass "${_good}.sass" --res-usage "${_good}.res-usage.txt")
set(_good_metrics "${CMAKE_CURRENT_SOURCE_DIR}/cli/baseline.json")

# tileperf_bad_input(<kind> <case> <place-and-message regex>)
#   Runs tileperf on tests/bad_inputs/<kind>/<case> as an input of that kind
#   and expects exit 2 and "tileperf: error: <path of the case><regex>".
function(tileperf_bad_input kind case regex)
  set(input "${_bad}/${kind}/${case}")
  if(kind STREQUAL "sass")
    set(args extract --cubin "${_good}.cubin" --sass "${input}" --res-usage "${_good}.res-usage.txt")
  elseif(kind STREQUAL "res-usage")
    set(args extract --cubin "${_good}.cubin" --sass "${_good}.sass" --res-usage "${input}")
  elseif(kind STREQUAL "cubin")
    set(args extract --cubin "${input}" --sass "${_good}.sass" --res-usage "${_good}.res-usage.txt")
  elseif(kind STREQUAL "line-table")
    set(args loops "${input}" --sass "${_good}.sass")
  elseif(kind STREQUAL "remarks")
    set(args extract ${_good_extract} --remarks "${input}")
  elseif(kind STREQUAL "tileir")
    set(args extract ${_good_extract} --tileir "${input}")
  elseif(kind STREQUAL "problem")
    set(args extract ${_good_extract} --dump-info "${input}")
  elseif(kind STREQUAL "metrics")
    set(args compare "${input}" "${_good_metrics}" --checks "${TILEPERF_CHECKS_DIR}")
  elseif(kind STREQUAL "baseline")
    set(input "${_bad}/metrics/${case}")
    set(args compare "${_good_metrics}" "${input}" --checks "${TILEPERF_CHECKS_DIR}")
  elseif(kind STREQUAL "policy")
    set(args compare "${_good_metrics}" "${_good_metrics}" --checks "${input}")
  elseif(kind STREQUAL "result")
    set(args summary "${input}")
  else()
    message(FATAL_ERROR "tileperf_bad_input: unknown kind '${kind}'")
  endif()
  file(RELATIVE_PATH shown "${_bad}" "${input}")
  string(REGEX REPLACE "[.]" "[.]" shown "${shown}")
  add_test(NAME "bad_input.${kind}.${case}"
    COMMAND "${CMAKE_COMMAND}" -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=tileperf: error: [^\n]*/${shown}${regex}"
      -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/ExpectRun.cmake" -- $<TARGET_FILE:tileperf> ${args})
  set_tests_properties("bad_input.${kind}.${case}" PROPERTIES LABELS "selftest;bad_input" TIMEOUT 60)
endfunction()

tileperf_bad_input(sass address_backwards.sass ":9: instruction address does not follow the one before\n")
tileperf_bad_input(sass bad_predicate.sass ":97: unrecognized predicate '@Q9'\n")
tileperf_bad_input(sass end_marker_first.sass ":3: end marker outside a function\n")
tileperf_bad_input(sass garbage_line.sass ":13: unrecognized line in SASS listing\n")
tileperf_bad_input(sass long_line.sass
  ":13: unrecognized line in SASS listing\n +/\\*0050\\*/ \\(+\\.\\.\\. \\(100017 characters\\)\n")
tileperf_bad_input(sass missing_control_word.sass ":8: expected the control word of the instruction above\n")
tileperf_bad_input(sass mixed_arch.sass ":315: listing mixes architectures sm_120a and sm_90a\n")
tileperf_bad_input(sass no_functions.sass ":3: no functions in SASS listing\n")
tileperf_bad_input(sass truncated.sass ":40: listing is truncated: function 'gelu' has no end marker\n")

tileperf_bad_input(res-usage bad_index.txt ":6: expected KEY:VALUE resource counts\n")
tileperf_bad_input(res-usage cut_after_function.txt ":5: resource usage is truncated: counts missing at end\n")
tileperf_bad_input(res-usage garbage.txt ":2: unrecognized line in resource usage\n")
tileperf_bad_input(res-usage huge_value.txt ":6: expected KEY:VALUE resource counts\n")
tileperf_bad_input(res-usage long_line.txt ":3: expected KEY:VALUE resource counts\n")
tileperf_bad_input(res-usage missing_reg.txt ":6: resource counts lack REG\n")
tileperf_bad_input(res-usage no_functions.txt ":3: no functions in resource usage\n")

tileperf_bad_input(cubin elf32.cubin ": not a 64-bit little-endian ELF file\n")
tileperf_bad_input(cubin not_elf.cubin ": not an ELF file \\(bad magic or shorter than an ELF header\\)\n")
tileperf_bad_input(cubin section_past_end.cubin
  ": truncated ELF: section 1 ends at byte 9223372036854775872 past the end \\(28064 bytes\\)\n")
tileperf_bad_input(cubin shoff_huge.cubin
  ": truncated ELF: 46 section headers at byte 18446744073709551600 lie past the end \\(28064 bytes\\)\n")
tileperf_bad_input(cubin shstrndx_out_of_range.cubin ": section name table index out of range\n")
tileperf_bad_input(cubin small_header_entries.cubin ": section header entry size 32 is too small\n")
tileperf_bad_input(cubin strtab_nobits.cubin ": string table has no data in the file\n")
tileperf_bad_input(cubin truncated_half.cubin
  ": truncated ELF: 46 section headers at byte 24784 lie past the end \\(14032 bytes\\)\n")

tileperf_bad_input(line-table header_length.cubin
  ": \\.debug_line: header runs past the end of the section \\(at byte 10\\)\n")
tileperf_bad_input(line-table line_range_zero.cubin ": \\.debug_line: line_range is 0 \\(at byte 15\\)\n")
tileperf_bad_input(line-table unit_length.cubin
  ": \\.debug_line: unit runs past the end of the section \\(at byte 4\\)\n")
tileperf_bad_input(line-table version.cubin
  ": \\.debug_line: unsupported DWARF line table version 9 \\(at byte 6\\)\n")

tileperf_bad_input(remarks args_not_list.yaml ":11: remark 'Args' is not a list\n")
tileperf_bad_input(remarks invalid_yaml.yaml ":13: invalid YAML: end of sequence flow not found\n")
tileperf_bad_input(remarks key_not_scalar.yaml ":15: remark field of the wrong type: bad conversion\n")
tileperf_bad_input(remarks line_not_a_number.yaml ":14: remark field of the wrong type: bad conversion\n")
tileperf_bad_input(remarks nested_deep.yaml ":12: remark nested deeper than 32 levels\n")
tileperf_bad_input(remarks no_name.yaml ":11: remark lacks 'Name'\n")
tileperf_bad_input(remarks stray_comma.yaml ":11: remark document is not a mapping\n")
tileperf_bad_input(remarks truncated.yaml
  ":19: remarks are truncated: the last document has no end marker '\\.\\.\\.'\n")
tileperf_bad_input(remarks two_starts.yaml
  ":10: a remark document starts before the last one ended with '\\.\\.\\.'\n--- !Passed\n")

tileperf_bad_input(tileir entry_in_region.tileir ":2: entry inside a region\n")
tileperf_bad_input(tileir extra_close.tileir ":45: '}' closes no region\n")
tileperf_bad_input(tileir garbage_line.tileir ":2: unrecognized line in TileIR\n")
tileperf_bad_input(tileir long_line.tileir ":2: unrecognized line in TileIR\n +%+\\.\\.\\. \\(100005 characters\\)\n")
tileperf_bad_input(tileir outside_entry.tileir ":1: operation outside an entry\n")
tileperf_bad_input(tileir unclosed.tileir ":42: TileIR is truncated: 1 region\\(s\\) not closed\n")

set(_count "must be an integer from 0 to 9007199254740991, got")
foreach(kind IN ITEMS metrics baseline)
  tileperf_bad_input(${kind} bad_kernel_name.json ": key 'kernel': '\\.\\./\\.\\./etc/passwd' must match")
  tileperf_bad_input(${kind} duplicate_key.json ": key 'metrics\\.regs' appears twice\n")
  tileperf_bad_input(${kind} fraction.json ": key 'metrics\\.regs' ${_count} 27\\.9\n")
  tileperf_bad_input(${kind} huge.json ": key 'metrics\\.regs' ${_count} 1e\\+20\n")
  tileperf_bad_input(${kind} negative.json ": key 'metrics\\.regs' ${_count} -5\n")
  tileperf_bad_input(${kind} unsigned_max.json ": key 'metrics\\.regs' ${_count} 18446744073709551615\n")
  tileperf_bad_input(${kind} string_value.json ": key 'metrics\\.regs' ${_count} \"many\"\n")
  tileperf_bad_input(${kind} metrics_not_object.json ": key 'metrics' must be an object\n")
  tileperf_bad_input(${kind} missing_metrics.json ": missing key 'metrics'\n")
  tileperf_bad_input(${kind} nested_deep.json ":4: JSON nested deeper than 64 levels\n")
  tileperf_bad_input(${kind} not_object.json ": expected a JSON object\n")
  tileperf_bad_input(${kind} number_overflow.json ":10: invalid JSON: number overflow parsing '1e400'\n")
  tileperf_bad_input(${kind} syntax.json ":7: invalid JSON: syntax error while parsing object separator")
endforeach()

set(_pattern "must be words of \\[A-Za-z0-9_\\] joined by '\\.', with '\\*' for any run")
tileperf_bad_input(policy bad_direction "/default\\.json: key 'rules\\[0\\]': direction must be one of")
tileperf_bad_input(policy bad_require "/gelu\\.json: key 'invariants\\[0\\]': require 'regs = 0' must look like")
tileperf_bad_input(policy bad_tolerance "/default\\.json: key 'rules\\[0\\]': tolerance 'five' must look like")
tileperf_bad_input(policy duplicate_key "/gelu\\.json: key 'rules' appears twice\n")
tileperf_bad_input(policy empty_pattern "/default\\.json: key 'rules\\[0\\]': metric pattern '' ${_pattern}\n")
tileperf_bad_input(policy huge_tolerance
  "/default\\.json: key 'rules\\[0\\]': tolerance '99999999999999999999' must look like")
tileperf_bad_input(policy kernel_file_is_folder "/gelu\\.json: is a directory, not a file\n")
tileperf_bad_input(policy malformed_pattern
  "/default\\.json: key 'rules\\[0\\]': metric pattern 'sass\\.\\.mufu' ${_pattern}\n")
tileperf_bad_input(policy require_overflow
  "/gelu\\.json: key 'invariants\\[0\\]': require 'regs <= 99999999999999999999' must look like")
tileperf_bad_input(policy unknown_key "/gelu\\.json: unknown key 'rule'\n")

set(_result "/gelu\\.f16_1024\\.sm_120\\.result\\.json: ")
tileperf_bad_input(result bad_kernel_name "${_result}malformed result: key 'kernel' must match")
tileperf_bad_input(result state_unknown "${_result}unknown state '<script>alert\\(1\\)</script>'\n")
tileperf_bad_input(result diff_delta_string
  "${_result}malformed result: key 'diff\\[0\\]\\.delta' must be an integer difference of two counts\n")
tileperf_bad_input(result diff_not_object "${_result}malformed result: key 'diff\\[0\\]' must be an object\n")
tileperf_bad_input(result key_metric_fraction "${_result}key 'key_metrics\\.regs' ${_count} 2\\.5\n")
tileperf_bad_input(result missing_exit_code "${_result}malformed result: key 'exit_code' is missing\n")
tileperf_bad_input(result not_object "${_result}malformed result: expected a JSON object\n")
tileperf_bad_input(result seconds_string "${_result}malformed result: key 'seconds\\.compile' must be a number\n")
tileperf_bad_input(result state_not_string "${_result}malformed result: key 'state' must be a string\n")

tileperf_bad_input(problem grid_overflow.json ": problem: the grid has more than 1099511627776 blocks\n")
tileperf_bad_input(problem grid_zero.json
  ": problem: each grid dimension must be an integer from 1 to 2147483647\n")
tileperf_bad_input(problem line_huge.json ": problem: a line must be an integer from 1 to 2147483647\n")
tileperf_bad_input(problem no_grid.json ": problem: expected an object with a 'grid' and a 'trips' list\n")
tileperf_bad_input(problem trips_fraction.json
  ": problem: trips of 'k' must be an integer from 0 to 2147483647\n")

tileperf_cli_test(bad_input_directory_as_file 2
  "tileperf: error: [^\n]*/bad_inputs: is a directory, not a file\n"
  extract --cubin "${_good}.cubin" --sass "${_bad}" --res-usage "${_good}.res-usage.txt")

# `tileperf check` of a stand-in configuration with fake tools.
# tileperf_fake_check(<name> <tileiras mode> <cuobjdump mode> <exit> <regex> [check args...])
function(tileperf_fake_check name tileiras_mode cuobjdump_mode exit regex)
  set(work "${CMAKE_BINARY_DIR}/tileperf-selftest/fake_check/${name}")
  add_test(NAME "fault.${name}"
    COMMAND "${CMAKE_COMMAND}" -E env "FAKE_TILEIRAS_MODE=${tileiras_mode}"
      "FAKE_CUOBJDUMP_MODE=${cuobjdump_mode}"
      "${CMAKE_COMMAND}" "-DEXPECT_EXIT=${exit}" "-DEXPECT_OUTPUT=${regex}"
      -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/ExpectRun.cmake" --
      $<TARGET_FILE:tileperf> check --kernel gelu --config f16_1024 --arch sm_100
      --bytecode "${_bad}/check/f16_1024.tileirbc" --work-dir "${work}" --baseline "${work}/none.json"
      --tileiras "${CMAKE_CURRENT_SOURCE_DIR}/fake_tools/tileiras"
      --cuobjdump "${CMAKE_CURRENT_SOURCE_DIR}/fake_tools/cuobjdump" --checks "${TILEPERF_CHECKS_DIR}"
      ${ARGN})
  # Every fault must end well before this: none may hang the run.
  set_tests_properties("fault.${name}" PROPERTIES LABELS "selftest;fault" TIMEOUT 40)
endfunction()

set(_compile "tileperf: error: tileiras failed to compile [^\n]* for sm_100")
tileperf_fake_check(fakes_work ok none 5 "perf\\.gelu\\.f16_1024\\.sm_100: new[^\n]*\n(  launch: [^\n]*\n)?  no baseline at ")
tileperf_fake_check(tileiras_closes_output_and_hangs closehang none 4 "${_compile} \\(timed out after 2s\\)\n"
  --timeout 2)
tileperf_fake_check(tileiras_floods_stderr flood none 4
  "${_compile} \\(wrote more than 64 MiB to standard error\\)")
tileperf_fake_check(tileiras_leaves_a_child orphan none 4 "${_compile}: exit 0 but no cubin was written to ")
tileperf_fake_check(tileiras_writes_truncated_cubin truncated none 4
  "tileperf: error: tileiras wrote a cubin that is not a complete ELF file: [^\n]*/f16_1024\\.sm_100\\.cubin: truncated ELF: ")
tileperf_fake_check(cuobjdump_crashes ok crash 4
  "tileperf: error: cuobjdump --dump-sass [^\n]*\\.cubin failed \\(killed by signal 11 \\(Segmentation fault\\)\\)")
tileperf_fake_check(cuobjdump_hangs ok hang 4
  "tileperf: error: cuobjdump --dump-sass [^\n]*\\.cubin failed \\(timed out after 2s\\)" --timeout 2)
tileperf_fake_check(cuobjdump_error_exit0 ok error0 4
  "cuobjdump --dump-sass [^\n]* failed \\(exit 0, but it reported an error\\): cuobjdump fatal   : Could not open")
tileperf_fake_check(cuobjdump_prints_nothing ok empty 4
  "cuobjdump --dump-sass [^\n]* failed \\(exit 0, but it printed nothing\\)")
tileperf_fake_check(cuobjdump_cuts_listing ok truncated 4
  "tileperf: error: cuobjdump --dump-sass [^\n]*\\.cubin printed output that tileperf cannot read: [^\n]*/f16_1024\\.sm_100\\.sass:40: listing is truncated: function 'gelu' has no end marker")
foreach(bad IN ITEMS 0 -5 nan inf)
  tileperf_fake_check(timeout_${bad} ok none 2
    "tileperf: error: --timeout must be a positive number of seconds, got ${bad}\n" --timeout=${bad})
endforeach()

# SIGINT or SIGKILL to tileperf while a tool hangs: no process of the tool's
# group is left, and tileperf ends by that signal.
foreach(signal IN ITEMS INT KILL)
  add_test(NAME fault.sig${signal}_while_a_tool_runs
    COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs/interrupt.sh" $<TARGET_FILE:tileperf>
      "${CMAKE_CURRENT_SOURCE_DIR}/fake_tools" "${_bad}/check/f16_1024.tileirbc"
      "${CMAKE_BINARY_DIR}/tileperf-selftest/fake_check/sig${signal}" ${signal})
  set_tests_properties(fault.sig${signal}_while_a_tool_runs PROPERTIES LABELS "selftest;fault" TIMEOUT 40)
endforeach()

# Texts of a result that are markup (message, note, metric, broken check)
# reach the HTML report escaped: no <script> of theirs, each one shown.
add_test(NAME report.html_markup_escaped
  COMMAND sh -c "\"$1\" report \"$2\" --html \"$3\" && ! grep -F '<script>alert' \"$3\" && for i in 1 2 3 4; do grep -qF \"&lt;script&gt;alert($i)&lt;/script&gt;\" \"$3\" || exit 1; done"
    sh $<TARGET_FILE:tileperf> "${_bad}/html_state" "${CMAKE_BINARY_DIR}/tileperf-selftest/html_state.html")
set_tests_properties(report.html_markup_escaped PROPERTIES LABELS "selftest;report")

# A write interrupted by SIGKILL leaves <file>.tmp.<pid>: the next write of
# the same file removes the temporaries whose process is gone.
add_test(NAME atomic_write.stale_temporaries_removed
  COMMAND sh -c "mkdir -p \"$3\" && : > \"$3/r.json.tmp.4194303\" && \"$1\" report \"$2\" --json \"$3/r.json\" && test -f \"$3/r.json\" && test ! -e \"$3/r.json.tmp.4194303\""
    sh $<TARGET_FILE:tileperf> "${CMAKE_CURRENT_SOURCE_DIR}/fixtures/results/run"
    "${CMAKE_BINARY_DIR}/tileperf-selftest/stale_temporaries")
set_tests_properties(atomic_write.stale_temporaries_removed PROPERTIES LABELS "selftest;report")
