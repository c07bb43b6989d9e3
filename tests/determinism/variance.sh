#!/usr/bin/env bash
# tileperf variance on one shipped configuration with the real tileiras: it
# compiles N times in each mode, finds one cubin, keeps its runs, and goes on
# where it stopped (the same command makes nothing; a larger N adds runs).
#   variance.sh <tileperf> <work folder of the build> <scratch folder>
set -euo pipefail
tileperf=$1 work=$2 scratch=$3
rm -rf "$scratch"
fail() { echo "variance.sh: $*" >&2; exit 1; }
measure() {
  "$tileperf" variance --list "$work/compile-batch.json" --toolchain "$work/toolchain.json" \
    -R '^perf\.gelu\.f16_1024\.sm_120$' --folder "$scratch" -j 2 "$@" | tail -1
}
expect() {
  local got
  got=$(measure "${@:2}")
  [[ $got == "$1" ]] || fail "expected '$1', got '$got'"
}
expect "variance: 1 configuration(s), 4 compilation(s) made now, 0 found in $scratch; 0 vary, 0 with the randomisation off" -n 2
expect "variance: 1 configuration(s), 0 compilation(s) made now, 4 found in $scratch; 0 vary, 0 with the randomisation off" -n 2
expect "variance: 1 configuration(s), 1 compilation(s) made now, 2 found in $scratch; 0 vary, 0 with the randomisation off" -n 3 --randomisation off
[[ $(ls "$scratch/perf.gelu.f16_1024.sm_120/cubins/"*.cubin | wc -l) == 1 ]] || fail "more than one cubin kept"
grep -q '^`tileperf variance' "$scratch/variance.md" || fail "no table in $scratch/variance.md"
echo "variance.sh: 5 compilations, one cubin, resumed"
