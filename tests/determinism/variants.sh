#!/usr/bin/env bash
# A compilation that varies, end to end, with a fake tileiras that gives one
# of three cubins for the same bytecode: the update target records a variant
# only when asked, a check passes on each recorded variant and fails on a new
# one as `compiler varies` (exit 11), naming the nearest; an update that is
# not asked to record it writes nothing.
#   variants.sh <tileperf> <tests folder> <checks folder> <scratch folder>
set -euo pipefail
tileperf=$1 tests=$2 checks=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
baseline=$work/f16_1024.sm_100.json
fail() { echo "variants.sh: $*" >&2; exit 1; }
# run <fake mode> <expected exit> <expected output regex> [env...]
run() {
  local mode=$1 exit=$2 regex=$3 code=0
  shift 3
  rm -f "$work"/*.memo.json  # the fake tool's mode is no input a check's memo knows
  env --unset=CI FAKE_TILEIRAS_MODE="$mode" TILEPERF_COMPILER_ENV=FAKE_TILEIRAS_MODE "$@" \
    "$tileperf" check --kernel gelu --config f16_1024 --arch sm_100 \
    --bytecode "$tests/bad_inputs/check/f16_1024.tileirbc" --work-dir "$work" --baseline "$baseline" \
    --tileiras "$tests/fake_tools/tileiras" --cuobjdump "$tests/fake_tools/cuobjdump" --checks "$checks" \
    --update-command update >"$work/out" 2>&1 || code=$?
  [[ $code == "$exit" ]] || fail "$mode: exit $code, expected $exit: $(cat "$work/out")"
  tr '\n' ' ' <"$work/out" | grep -Eq "$regex" || fail "$mode: expected /$regex/ in: $(cat "$work/out")"
}
run ok 0 ': created' TILEPERF_UPDATE_BASELINES=1
grep -q '"compiled"' "$baseline" && fail "a deterministic baseline records what was compiled"
run variant2 0 ': updated .*recorded a new variant of this compilation: 2 of 2' TILEPERF_UPDATE_BASELINES=1 TILEPERF_RECORD_VARIANT=1
run ok 0 ': updated .*variant 1 of 2 of this varying compilation written' TILEPERF_UPDATE_BASELINES=1 TILEPERF_RECORD_VARIANT=1
run ok 0 ': pass.*this is variant 1 of the 2 its baseline records'
run variant2 0 ': pass.*this is variant 2 of the 2 its baseline records'
run variant3 11 ': compiler varies .*the compiler varies: the bytecode its 2 recorded variants were compiled from gave another cubin .*if it is another variant of the same code, record it with: TILEPERF_RECORD_VARIANT=1 update'
before=$(sha256sum "$baseline")
run variant3 11 ': compiler varies .*nothing written; to record it as one more variant: TILEPERF_RECORD_VARIANT=1 update' TILEPERF_UPDATE_BASELINES=1
[[ $(sha256sum "$baseline") == "$before" ]] || fail "an update not asked to record a variant rewrote the baseline"
run variant3 0 ': updated .*3 of 3' TILEPERF_UPDATE_BASELINES=1 TILEPERF_RECORD_VARIANT=1
run variant3 0 ': pass.*variant 3 of the 3'
echo "variants.sh: recorded when asked, passes on each variant, a new one fails as compiler varies"
