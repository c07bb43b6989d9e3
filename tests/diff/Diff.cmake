# tileperf diff on real artifacts (cmake -P): `tileperf check` compiles the
# shipped gelu and matmul and their mutants (gelu_exact_tanh, matmul_smaller_tile)
# into two folders laid out as a build's tileperf/, base and head; the diff
# between them must name the deltas the mutants made, line by line and
# instruction by instruction.
#   -DTILEPERF=... -DTILEIRAS=... -DCUOBJDUMP=... -DCHECKS=<dir> -DWORK=<scratch dir>
#   -DGELU=<gelu f16_1024 bytecode> -DGELU_MUTANT=<gelu_exact_tanh's>
#   -DMATMUL=<matmul f16_128x128x64 bytecode> -DMATMUL_MUTANT=<the mutant's>
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ENV{TILEPERF_UPDATE_BASELINES} "")

include("${CMAKE_CURRENT_LIST_DIR}/../cmake/Step.cmake")

# compile(<side> <kernel> <config> <arch> <bytecode>): the test's files in <side>/<kernel>/.
function(compile side kernel config arch bytecode)
  step("compile ${side} ${kernel} ${config} ${arch}" 5 "perf\\.${kernel}\\.${config}\\.${arch}: new"
    "${TILEPERF}" check --kernel ${kernel} --config ${config} --arch ${arch} --bytecode "${bytecode}"
    --work-dir "${WORK}/${side}/${kernel}" --baseline "${WORK}/none.json" --checks "${CHECKS}"
    --tileiras "${TILEIRAS}" --cuobjdump "${CUOBJDUMP}" --update-command "UPDATE")
endfunction()
compile(base gelu f16_1024 sm_120 "${GELU}")
compile(head gelu f16_1024 sm_120 "${GELU_MUTANT}")
compile(base matmul f16_128x128x64 sm_90 "${MATMUL}")
compile(head matmul f16_128x128x64 sm_90 "${MATMUL_MUTANT}")

set(diff "${TILEPERF}" diff --checks "${CHECKS}")

# gelu: tanh computed from exp2 and a reciprocal. Line 21 gained the
# instructions; the SASS diff takes MUFU.TANH out and puts MUFU.EX2 in, each
# instruction with its source line. gelu has no loop: the whole function.
step("gelu: tanh written out" 3
  "perf\\.gelu\\.f16_1024\\.sm_120: regressed\n.*  sass\\.mufu\\.EX2 \\[new\\] +0 +[1-9][0-9]* +\\+[1-9][0-9]* +\\+inf% +\\+0 +REGRESSED\n.*  source lines that moved \\(instructions\\):\n    gelu\\.py:21 +[0-9]+ -> [0-9]+ +\\+[1-9][0-9]* +t = ct\\.tanh\\(inner\\)\n.*  SASS: no main loop\n  SASS of function gelu \\(0x0000-0x[0-9a-f]+ in base, 0x0000-0x[0-9a-f]+ in head\\): [0-9]+ -> [0-9]+ instructions, -[1-9][0-9]* \\+[1-9][0-9]* lines\n  @@ -[0-9]+,[0-9]+ \\+[0-9]+,[0-9]+ @@\n.*\n  - MUFU\\.TANH R[0-9]+, R[0-9]+ +gelu\\.py:21\n.*\n  \\+ MUFU\\.EX2 R[0-9]+, R[0-9]+ +gelu\\.py:21\n.*1 test\\(s\\) in both: 1 regressed; 0 added, 0 removed"
  ${diff} "${WORK}/base" "${WORK}/head" --test "^perf\\.gelu\\." --max-lines 0 --json "${WORK}/gelu.json")
# The JSON says the same.
file(READ "${WORK}/gelu.json" json)
string(JSON state GET "${json}" tests 0 state)
string(JSON inserted GET "${json}" tests 0 sass 0 inserted)
string(JSON n_lines LENGTH "${json}" tests 0 lines)
set(line21 "")
math(EXPR last "${n_lines} - 1")
foreach(i RANGE ${last})
  string(JSON line GET "${json}" tests 0 lines ${i} line)
  if(line STREQUAL "gelu.py:21")
    string(JSON line21 GET "${json}" tests 0 lines ${i} delta)
  endif()
endforeach()
if(NOT state STREQUAL "regressed" OR NOT inserted GREATER 0 OR NOT line21 GREATER 0)
  message(FATAL_ERROR "gelu.json: state ${state}, ${inserted} SASS lines inserted, gelu.py:21 ${line21}")
endif()
# Masked registers: the same instructions, R? for every register.
step("gelu: registers masked" 3 "\n  \\+ MUFU\\.EX2 R\\?, R\\? +gelu\\.py:21\n"
  ${diff} "${WORK}/base" "${WORK}/head" --test "^perf\\.gelu\\." --max-lines 0 --ignore-registers)
# Capped at --max-lines, with the count of the rest.
step("gelu: capped" 3 "\n  \\.\\.\\. [1-9][0-9]* more lines\n"
  ${diff} "${WORK}/base" "${WORK}/head" --test "^perf\\.gelu\\." --max-lines 5)

# matmul with half the tile: the main loop changed, and its diff is shown,
# not the whole function: 64x128 MMAs out, 64x64 ones in.
step("matmul: main loop" 3
  "perf\\.matmul\\.f16_128x128x64\\.sm_90: regressed\n.*  SASS of the main loop of matmul \\(0x[0-9a-f]+-0x[0-9a-f]+ in base, 0x[0-9a-f]+-0x[0-9a-f]+ in head\\): [0-9]+ -> [0-9]+ instructions, -[1-9][0-9]* \\+[1-9][0-9]* lines\n  @@ [^\n]+ @@\n.*\n  - HGMMA\\.64x128x16\\.F32 [^\n]+matmul\\.py:[0-9]+\n.*\n  \\+ HGMMA\\.64x64x16\\.F32 [^\n]+matmul\\.py:[0-9]+\n"
  ${diff} "${WORK}/base" "${WORK}/head" --test "^perf\\.matmul\\." --max-lines 0)

# A side against itself: nothing moved, nothing printed but the count.
step("same build" 0 "^2 test\\(s\\) in both: 2 unchanged; 0 added, 0 removed"
  ${diff} "${WORK}/base" "${WORK}/base")

# A build folder (results in its tileperf/) and one kernel's folder are
# accepted; a test on one side only is listed as added or removed.
file(MAKE_DIRECTORY "${WORK}/build/tileperf")
file(COPY "${WORK}/head/gelu" DESTINATION "${WORK}/build/tileperf")
step("build folder, one kernel's folder" 3
  "perf\\.gelu\\.f16_1024\\.sm_120: regressed\n.*perf\\.matmul\\.f16_128x128x64\\.sm_90: removed \\(only in base\\)\n1 test\\(s\\) in both: 1 regressed; 0 added, 1 removed"
  ${diff} "${WORK}/base" "${WORK}/build")
step("added" 0 "perf\\.matmul\\.f16_128x128x64\\.sm_90: added \\(only in head\\)\n1 test\\(s\\) in both: 1 unchanged; 1 added, 0 removed"
  ${diff} "${WORK}/base/gelu" "${WORK}/base")

# The same test twice on one side is an error that names both files.
file(MAKE_DIRECTORY "${WORK}/twice/a" "${WORK}/twice/b")
file(COPY "${WORK}/base/gelu/f16_1024.sm_120.metrics.json" DESTINATION "${WORK}/twice/a")
file(COPY "${WORK}/base/gelu/f16_1024.sm_120.metrics.json" DESTINATION "${WORK}/twice/b")
step("a test twice" 2
  "^tileperf: error: [^\n]*/twice/b/f16_1024\\.sm_120\\.metrics\\.json: perf\\.gelu\\.f16_1024\\.sm_120 was already read from [^\n]*/twice/a/f16_1024\\.sm_120\\.metrics\\.json\n$"
  ${diff} "${WORK}/base" "${WORK}/twice")
# A metrics file that is not one: located, one line.
file(MAKE_DIRECTORY "${WORK}/broken/gelu")
file(WRITE "${WORK}/broken/gelu/f16_1024.sm_120.metrics.json" "{\"format\": \"tileperf-metrics/1\",\n  \"metrics\": [}\n")
step("broken metrics file" 2 "^tileperf: error: [^\n]*/broken/gelu/f16_1024\\.sm_120\\.metrics\\.json:2: "
  ${diff} "${WORK}/base" "${WORK}/broken")

# The policy folder and the update command come from the head's run record
# (`tileperf run-start`, the test run.start of a build) when --checks is not
# given; on a regression the diff says how to update the head's baselines.
set(recorded "${WORK}/recorded")
file(MAKE_DIRECTORY "${recorded}/base" "${recorded}/head")
file(COPY "${WORK}/base/gelu" DESTINATION "${recorded}/base")
file(COPY "${WORK}/head/gelu" DESTINATION "${recorded}/head")
step("run record" 0 "^run [^\n]+: [^\n]*/recorded/head/run\\.json\n$"
  "${TILEPERF}" run-start --out "${recorded}/head/run.json" --checks "${CHECKS}"
  --update-command "cmake --build recorded --target update_baselines")
step("policy folder from the run record" 3
  "perf\\.gelu\\.f16_1024\\.sm_120: regressed\n.*\n1 test\\(s\\) in both: 1 regressed; 0 added, 0 removed \\(base [^\n]*/recorded/base, head [^\n]*/recorded/head\\)\nif intended, update the head build's baselines with: cmake --build recorded --target update_baselines\n$"
  "${TILEPERF}" diff "${recorded}/base" "${recorded}/head" --json "${WORK}/recorded.json")
file(READ "${WORK}/recorded.json" json)
string(JSON checks GET "${json}" checks)
if(NOT checks STREQUAL "${CHECKS}")
  message(FATAL_ERROR "recorded.json: checks ${checks}, expected ${CHECKS}")
endif()
# A run record of an older tileperf keeps neither: the diff asks for --checks.
file(WRITE "${recorded}/head/run.json" "{\"format\": \"tileperf-run/1\", \"run\": \"old\"}\n")
step("run record without a policy folder" 2
  "^tileperf: error: [^\n]*/recorded/head/run\\.json: the run record keeps no policy folder \\(a record of an older tileperf\\): give --checks, or run the build's tests again\n$"
  "${TILEPERF}" diff "${recorded}/base" "${recorded}/head")
step("run record without a policy folder, --checks given" 3
  "\n1 test\\(s\\) in both: 1 regressed; 0 added, 0 removed \\([^\n]*\\)\n$"
  "${TILEPERF}" diff "${recorded}/base" "${recorded}/head" --checks "${CHECKS}")
