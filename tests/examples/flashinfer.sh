#!/usr/bin/env bash
# Drives examples/flashinfer, the gate of FlashInfer's cuTile kernels as
# FlashInfer is on PyPI (its requirements.txt, installed by tools/run into the
# Python of the gate beside tileperf's torch). One step per call (each a CTest test):
#
#   flashinfer.sh install   install tileperf, configure the example against the
#                           installed package: every configuration is listed
#   flashinfer.sh all       every configuration passes (ctest --preset libraries)
#   flashinfer.sh gate      a representative part passes against the committed baselines; the
#                           launches are FlashInfer's own: a persistent GEMM's grid
#                           is each architecture's SM count
#   flashinfer.sh edits     two more edits of FlashInfer's modules judged as ours:
#                           an exact division in the decode attention fails on
#                           its math, a wider quantizer block is a tuning change
#   flashinfer.sh launcher  FlashInfer's GEMM launcher changed to launch twice the
#                           programs (a copy of its module, searched first): the
#                           captured grid and cost.launch follow, nothing copied
#                           into the configuration
#
# Environment: TILEPERF_BUILD (tileperf's build folder), TILEPERF_SOURCE,
# TILEPERF_PYTHON (with cuda-tile, pytest and flashinfer-python), WORK (scratch folder).
set -euo pipefail
: "${TILEPERF_BUILD:?}" "${TILEPERF_SOURCE:?}" "${TILEPERF_PYTHON:?}" "${WORK:?}"
example=$TILEPERF_SOURCE/examples/flashinfer
build=$WORK/build
unset TILEPERF_UPDATE_BASELINES TILEPERF_FILTER TILEPERF_LABEL
# The part the suite runs: the GEMMs (a persistent launcher, a tuner answered
# by tune=), the paged attention and the BF16 fused MoE through run_moe; the
# whole is `all` (ctest --preset libraries).
representative='^perf\.(gemm|attention|moe)\.'

source "$(dirname "${BASH_SOURCE[0]}")/edits.sh"
fail() { echo "flashinfer.sh $step: $*" >&2; exit 1; }
quiet() { "$@" >"$WORK/last.log" 2>&1 || { cat "$WORK/last.log"; return 1; }; }
# A field of a dump record: record <kernel>/<config> <python expression on r>.
record() {
  "$TILEPERF_PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$1/tileperf/$2.tileirbc.json" "$3"
}
metric() {
  "$TILEPERF_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["metrics"][sys.argv[2]])' \
    "$1/tileperf/$2.metrics.json" "$3"
}

step_install() {
  install_example
  local kernels
  kernels=$(cat "$example"/*.py | grep -c '^    "[a-z0-9_]*": ')
  [[ $perf -ge 60 ]] || fail "only $perf perf tests were registered"
  echo "$kernels configurations, $perf perf tests"
}

step_all() { run_gate; }

step_gate() {
  run_gate -R "$representative|$(varying_tests)"
  # The persistent batched GEMM's grid is each architecture's own SM count
  # (FlashInfer's launcher: min(NUM_SMS, tiles) programs); mm_bf16's is a
  # constant of the kernel, so sm_90 and sm_100 have bytecode of their own.
  local grids
  grids=$(record "$build" gemm/bmm_b8_m1024_n1024_k128 \
    '[r["archs"][a]["problem"]["grid"][0] for a in ("sm_90", "sm_100", "sm_120")]')
  [[ $grids == "[132, 148, 188]" ]] || fail "the persistent grids are $grids"
  [[ $(record "$build" gemm/mm_m4096_n14336_k4096_128x128 'r["archs"]["sm_90"]["bytecode"]') == \
     mm_m4096_n14336_k4096_128x128.sm_90.tileirbc ]] || fail "sm_90's num_programs has no bytecode of its own"
  [[ $(record "$build" gemm/mm_m4096_n14336_k4096_128x128 \
       'r["archs"]["sm_90"]["signature"]["parameters[9].value"]') == 132 ]] ||
    fail "mm_bf16's num_programs on sm_90 is not 132"
}

step_launcher() {
  edited_build flashinfer -DFLASHINFER_PATH gemm/kernels/cutile/mm_bf16_cutile.py \
    "min(NUM_SMS // num_ctas, total_tiles) * occupancy)" "min(NUM_SMS // num_ctas, total_tiles) * occupancy * 2)" gemm
  local edited=$WORK/build-edited config=gemm/mm_m4096_n14336_k4096_128x128
  ctest --test-dir "$edited" -R "^perf\.gemm\.mm_m4096_n14336_k4096_128x128\.sm_90$" >"$WORK/last.log" 2>&1 || true
  [[ $(record "$edited" $config 'r["archs"]["sm_90"]["problem"]["grid"][0]') == 264 ]] ||
    fail "the edited launcher's grid did not reach the record"
  local before after
  before=$(metric "$build" $config.sm_90 cost.launch)
  after=$(metric "$edited" $config.sm_90 cost.launch)
  [[ $after -gt $before ]] || fail "cost.launch did not grow: $before -> $after"
  local message
  message=$("$TILEPERF_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["message"])' \
    "$edited/tileperf/$config.sm_90.result.json")
  [[ $message == "tuning change (parameters[9].value: 132 -> 264), judged by the launch estimate"* ]] ||
    fail "the check did not judge the launcher's new grid as a tuning change: $message"
  echo "cost.launch $before -> $after; $message"
}

# edit <module path> <old> <new> <kernel/config.arch> <regex>: FlashInfer with that module edited, judged.
edit() { judged flashinfer -DFLASHINFER_PATH "$@"; }

# Two more edits of FlashInfer's own modules, judged as edits of ours (the
# launcher's grid is the third): a precise division for the approximate one
# in the decode attention's epilogue fails on its math; a per-token quantizer
# block twice as wide is a tuning change judged by the launch estimate.
step_edits() {
  edit attention/kernels/cutile/fmha_decode_bsr_cutile.py \
    "flush_to_zero=True, rounding_mode=RMd.APPROX" "flush_to_zero=True" \
    attention/gqa_decode_b8_s1024.sm_120 "^regressed: "
  edit quantization/kernels/cutile/per_token_group_quant_8bit_cutile.py \
    "BLOCK = _next_power_of_2(N)" "BLOCK = 2 * _next_power_of_2(N)" \
    quant/per_token_t4096_h7168_g128.sm_90 "tuning change .*judged by the launch estimate"
}

step=${1:?usage: flashinfer.sh install|gate|all|launcher|edits}
"step_$step"
echo "flashinfer.sh $step: ok"
