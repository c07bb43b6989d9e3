#!/usr/bin/env bash
# Drives examples/tilegym, the gate of TileGym's cuTile kernels as TileGym is
# on PyPI (its requirements.txt, installed by tools/run into the Python of the
# gate, beside tileperf's torch). One step per call (each a CTest test):
#
#   tilegym.sh install   install tileperf, configure the example against the
#                        installed package: every configuration is listed
#   tilegym.sh gate      a representative part passes against the committed
#                        baselines: softmax (TileGym's public op, autograd
#                        Function and tuning cache) and the model kernels read
#                        from TileGym's kernel inventory (Definitions, Workloads),
#                        and every configuration whose compilation varies (its
#                        baseline records variants: varying_tests in edits.sh)
#   tilegym.sh all       every configuration passes (ctest --preset libraries)
#   tilegym.sh edits     three edits of TileGym's own softmax module (a copy,
#                        searched first), each judged as an edit of ours: an
#                        exact exp for the approximate one fails on its math,
#                        a doubled tile is a tuning change the launch estimate
#                        fails, a persistent grid of a quarter of the programs
#                        fails on the estimate, naming the launch that moved
#
# Environment: TILEPERF_BUILD (tileperf's build folder), TILEPERF_SOURCE,
# TILEPERF_PYTHON (with cuda-tile, pytest and tilegym), WORK (scratch folder).
set -euo pipefail
: "${TILEPERF_BUILD:?}" "${TILEPERF_SOURCE:?}" "${TILEPERF_PYTHON:?}" "${WORK:?}"
example=$TILEPERF_SOURCE/examples/tilegym
build=$WORK/build
unset TILEPERF_UPDATE_BASELINES TILEPERF_FILTER TILEPERF_LABEL
representative='^perf\.(softmax|transformers)\.'

source "$(dirname "${BASH_SOURCE[0]}")/edits.sh"
fail() { echo "tilegym.sh $step: $*" >&2; exit 1; }
quiet() { "$@" >"$WORK/last.log" 2>&1 || { cat "$WORK/last.log"; return 1; }; }
step_install() {
  install_example
  [[ $perf -ge 40 ]] || fail "only $perf perf tests were registered"
  echo "$perf perf tests"
}

step_gate() { run_gate -R "$representative|$(varying_tests)"; }
step_all() { run_gate; }

# edit <old> <new> <config.arch> <regex>: TileGym's softmax module edited, judged.
edit() { judged tilegym -DTILEGYM_PATH ops/cutile/softmax.py "$1" "$2" "softmax/$3" "$4"; }

step_edits() {
  edit "numerator = ct.exp(row_minus_max, rounding_mode=RMd.APPROX)" "numerator = ct.exp(row_minus_max)" \
    rows4096_cols4096.sm_120 "^regressed: "
  edit "TILE_SIZE = next_power_of_2(n_cols)" "TILE_SIZE = next_power_of_2(n_cols) * 2" \
    rows4096_cols4096.sm_120 "tuning change .*judged by the launch estimate"
  edit "num_programs = min(NUM_SM * 4, n_rows)" "num_programs = min(NUM_SM, n_rows)" \
    rows4096_cols4096.sm_90 "^regressed: 1 metric\(s\) over the limit \(the launch moved: launch\.ctas 528 -> 132.*limiting term l2 -> latency\)"
}

step=${1:?usage: tilegym.sh install|gate|all|edits}
"step_$step"
echo "tilegym.sh $step: ok"
