#!/usr/bin/env bash
# Drives the gate of tests/library/minilib, a kernel library written the way
# libraries are: its modules import torch and their own package at module
# level, its launches pick compiler hints from the sizes, and its sizes are
# not multiples of 16. torch is tileperf's own (on the fake GPU). One step per
# call (each a CTest test):
#
#   check.sh install    install tileperf, copy the library, configure its gate
#                       (tests/library/tileperf) against the installed package:
#                       every configuration is listed
#   check.sh gate       the dump exports what the launches would compile (the
#                       hints they pick, the divisibility of the sizes); no
#                       baselines: "new"; update_baselines; the gate passes
#   check.sh mismatch   a parameter added to one kernel and removed from the
#                       other: the dump step names each, and its configuration
#
# Environment: TILEPERF_BUILD (tileperf's build folder), TILEPERF_SOURCE,
# TILEPERF_PYTHON (with cuda-tile, torch and pytest), WORK (scratch folder).
set -euo pipefail
: "${TILEPERF_BUILD:?}" "${TILEPERF_SOURCE:?}" "${TILEPERF_PYTHON:?}" "${WORK:?}"
src=$WORK/src
build=$WORK/build
unset TILEPERF_UPDATE_BASELINES TILEPERF_FILTER TILEPERF_LABEL

fail() { echo "check.sh $step: $*" >&2; exit 1; }
quiet() { "$@" >"$WORK/last.log" 2>&1 || { cat "$WORK/last.log"; return 1; }; }
configure() { quiet cmake -S "$1/tileperf" -B "$2" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
  -DTILEPERF_PYTHON="$TILEPERF_PYTHON"; }
# The value of one field of a configuration's dump record's signature.
signature() {
  "$TILEPERF_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["signature"][sys.argv[2]])' \
    "$build/tileperf/$1.tileirbc.json" "$2"
}
expect() { [[ $(signature "$1" "$2") == "$3" ]] || fail "$1: $2 is $(signature "$1" "$2"), not $3"; }

step_install() {
  rm -rf "$WORK"
  mkdir -p "$WORK"
  quiet cmake --install "$TILEPERF_BUILD" --prefix "$WORK/prefix"
  cp -r "$TILEPERF_SOURCE/tests/library" "$src"
  rm -f "$src/check.sh" "$src/CMakeLists.txt"
  configure "$src" "$build"
  local expected actual
  # compile.batch is registered with the first perf test.
  expected=$(printf '%s\n' toolchain.probe run.start dump.gemm dump.batch.kernels \
    perf.gemm.f16_1000x1000x1024.sm_100 compile.batch perf.gemm.f16_1000x1000x1024.sm_90 \
    perf.gemm.bf16_4100x3000x1000.{sm_100,sm_90} dump.rms_norm \
    perf.rms_norm.{f16_4096x1000,bf16_333x3000}.{sm_100,sm_90})
  actual=$(ctest --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
  [[ $actual == "$expected" ]] || fail "configure listed other tests:"$'\n'"$actual"
}

step_gate() {
  quiet ctest --test-dir "$build" -L dump
  # The hints minilib's launches pick for these sizes, and what cuTile's JIT
  # infers from arrays of these shapes.
  expect gemm/f16_1000x1000x1024 hints.occupancy 2
  expect gemm/f16_1000x1000x1024 hints.num_ctas None
  expect gemm/f16_1000x1000x1024 "parameters[0].shape_divisible_by" "(1, 16)"
  expect gemm/f16_1000x1000x1024 "parameters[2].shape_divisible_by" "(1, 1)"
  expect gemm/bf16_4100x3000x1000 hints.occupancy 1
  expect gemm/bf16_4100x3000x1000 hints.num_ctas "ByTarget(sm_100: 2; default UNSPECIFIED)"
  expect rms_norm/f16_4096x1000 hints.occupancy 4
  expect rms_norm/f16_4096x1000 "parameters[0].shape_divisible_by" "(16, 1)"
  expect rms_norm/bf16_333x3000 "parameters[1].shape_divisible_by" "(1,)"
  expect rms_norm/bf16_333x3000 "parameters[4].value" 4096
  if ctest --test-dir "$build" -L perf >"$WORK/last.log" 2>&1; then
    fail "the gate passed without baselines"
  fi
  [[ $(cat "$build"/tileperf/*/*.result.json | grep -c '"state": "new"') == 8 ]] ||
    fail "the eight perf tests are not all new"
  quiet cmake --build "$build" --target update_baselines
  [[ $(ls "$src"/tileperf/baselines/*/*.sm_*[0-9].json | wc -l) == 8 ]] ||
    fail "update_baselines did not write eight baselines"
  quiet ctest --test-dir "$build" -L perf
  grep -q "100% tests passed, 0 tests failed out of " "$WORK/last.log" ||
    fail "the gate did not pass: $(cat "$WORK/last.log")"
  # The pair of CTAs the large launch asks for on sm_100 reached tileiras.
  grep -q "NumCTAs: *2" "$build/tileperf/gemm/bf16_4100x3000x1000.sm_100.remarks.yaml" ||
    fail "tileiras did not compile the large GEMM for pairs of CTAs on sm_100"
  ! grep -q "NumCTAs: *2" "$build/tileperf/gemm/bf16_4100x3000x1000.sm_90.remarks.yaml" ||
    fail "the sm_100 hint reached sm_90"
}

step_mismatch() {
  local changed=$WORK/changed
  rm -rf "$changed" "$WORK/build-changed"
  cp -r "$src" "$changed"
  sed -i 's/^def gemm_kernel(a, b, c,/def gemm_kernel(a, b, bias, c,/' \
    "$changed/minilib/kernels/gemm.py"
  sed -i -e 's/^def rms_norm_kernel(x, w, y, eps, TILE/def rms_norm_kernel(x, w, y, TILE/' \
    -e 's/mean_square + eps/mean_square + 1e-6/' "$changed/minilib/kernels/rms_norm.py"
  configure "$changed" "$WORK/build-changed"
  if ctest --test-dir "$WORK/build-changed" -L dump --output-on-failure >"$WORK/last.log" 2>&1; then
    fail "the dump step exported kernels whose signatures no longer match"
  fi
  grep -qF "$changed/tileperf/gemm.py: CONFIGS['f16_1000x1000x1024']: no value for bias of kernel gemm_kernel(a, b, bias, c, TILE_M, TILE_N, TILE_K)" "$WORK/last.log" ||
    fail "the added parameter is not named: $(cat "$WORK/last.log")"
  grep -qF "$changed/tileperf/rms_norm.py: CONFIGS['bf16_333x3000']: kernel rms_norm_kernel(x, w, y, TILE) has no parameter 'eps'" "$WORK/last.log" ||
    fail "the removed parameter is not named: $(cat "$WORK/last.log")"
}

step=${1:?usage: check.sh install|gate|mismatch}
"step_$step"
echo "check.sh $step: ok"
