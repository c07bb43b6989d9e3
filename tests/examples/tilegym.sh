#!/usr/bin/env bash
# Drives examples/tilegym, the gate of TileGym's cuTile kernels as TileGym is
# on PyPI (its requirements.txt, installed by tools/run into the Python of the
# gate, without torch). One step per call (each a CTest test):
#
#   tilegym.sh install   install tileperf, configure the example against the
#                        installed package: every configuration is listed
#   tilegym.sh gate      a representative part passes against the committed
#                        baselines: softmax (TileGym's public op, autograd
#                        Function and tuning cache) and the model kernels read
#                        from TileGym's kernel inventory (Definitions, Workloads)
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
result() {
  "$TILEPERF_PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["state"] + ": " + r["message"])' \
    "$1/tileperf/$2.result.json"
}

step_install() {
  rm -rf "$WORK"
  mkdir -p "$WORK"
  "$TILEPERF_PYTHON" "$TILEPERF_SOURCE/tools/tileperf_dump/requirements.py" "$example/requirements.txt" ||
    fail "the example's requirements are not installed (tools/run setup installs them)"
  quiet cmake --install "$TILEPERF_BUILD" --prefix "$WORK/prefix"
  quiet cmake -S "$example" -B "$build" -DCMAKE_PREFIX_PATH="$WORK/prefix" -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
  local perf
  perf=$(ctest --test-dir "$build" -N -L perf | grep -c 'perf\.')
  [[ $perf -ge 40 ]] || fail "only $perf perf tests were registered"
  echo "$perf perf tests"
}

run_gate() {
  if ! ctest --test-dir "$build" -L perf "$@" -j2 >"$WORK/last.log" 2>&1; then
    "$WORK/prefix/bin/tileperf" summary "$build/tileperf" | grep -v '^perf.* pass ' || true
    fail "the gate did not pass against the committed baselines"
  fi
}

step_gate() { run_gate -R "$representative"; }
step_all() { run_gate; }

# judged <old> <new> <config.arch> <regex of the expected "state: message">
judged() {
  edited_copy "$(installed_package tilegym)" "$WORK/edited/tilegym" ops/cutile/softmax.py "$1" "$2" ||
    fail "the edit's line was not found"
  local edited=$WORK/build-edited got
  rm -rf "$edited"
  quiet cmake -S "$example" -B "$edited" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
    -DTILEPERF_PYTHON="$TILEPERF_PYTHON" -DTILEGYM_PATH="$WORK/edited"
  ctest --test-dir "$edited" -R "^perf\.softmax\.$3$" >"$WORK/last.log" 2>&1 || true
  got=$(result "$edited" "softmax/$3")
  [[ $got =~ $4 ]] || fail "edit '$2': expected /$4/, got: $got"
  echo "edit '$2' on $3: $got" | cut -c1-240
}

step_edits() {
  judged "numerator = ct.exp(row_minus_max, rounding_mode=RMd.APPROX)" "numerator = ct.exp(row_minus_max)" \
    rows4096_cols4096.sm_120 "^regressed: "
  judged "TILE_SIZE = next_power_of_2(n_cols)" "TILE_SIZE = next_power_of_2(n_cols) * 2" \
    rows4096_cols4096.sm_120 "tuning change .*judged by the launch estimate"
  judged "num_programs = min(NUM_SM * 4, n_rows)" "num_programs = min(NUM_SM, n_rows)" \
    rows4096_cols4096.sm_90 "^regressed: 1 metric\(s\) over the limit \(the launch moved: launch\.ctas 528 -> 132.*limiting term l2 -> latency\)"
}

step=${1:?usage: tilegym.sh install|gate|all|edits}
"step_$step"
echo "tilegym.sh $step: ok"
