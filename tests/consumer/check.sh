#!/usr/bin/env bash
# Drives the consumer project in tests/consumer through what a kernel
# repository does with tileperf. One step per call (each a CTest test):
#
#   check.sh install        install tileperf, copy the consumer, configure it
#                           against the installed package (find_package)
#   check.sh baselines      no baselines: the tests fail as "new"; update_baselines
#                           creates them; the gate passes; ctest --output-junit works
#   check.sh measurements   with TILEPERF_MEASUREMENTS, ctest -T Test records the metrics
#                           as CTest measurements; without, none are printed
#   check.sh partial        a filtered update rewrites only the selected baseline
#   check.sh shards         three ctest shards merge into the report of one run
#   check.sh candidate      a second build folder configured with a candidate
#                           toolchain's Python: every test ends toolchain changed,
#                           nothing is written, summary and preview review it as one
#   check.sh interrupted    killing updates half way leaves every baseline whole
#   check.sh cache          tileperf cache: the build's result cache counted and pruned
#   check.sh concurrent     two cold gates at once in one build folder, three times,
#                           end as a serial run does
#   check.sh unlocked       two cold gates at once with the locks off (TILEPERF_TEST_UNLOCKED=1,
#                           for tests only): both compile everything, neither waits
#   check.sh memo           a rerun with nothing changed runs no tool; a changed
#                           baseline is compared again
#   check.sh subdirectory   the same project through add_subdirectory(tileperf)
#   check.sh missing_tools  configured without the toolchain: not run, with the
#                           reason; a failure when CI is set
#
# Environment: TILEPERF_BUILD (tileperf's build folder), TILEPERF_SOURCE,
# TILEPERF_PYTHON (with cuda-tile and pytest), WORK (scratch folder).
set -euo pipefail
: "${TILEPERF_BUILD:?}" "${TILEPERF_SOURCE:?}" "${TILEPERF_PYTHON:?}" "${WORK:?}"
src=$WORK/src
build=$WORK/build
tileperf=$WORK/prefix/bin/tileperf
baselines=$src/baselines/scale
unset TILEPERF_UPDATE_BASELINES TILEPERF_FILTER TILEPERF_LABEL TILEPERF_CACHE_DIR

fail() { echo "check.sh $step: $*" >&2; exit 1; }
quiet() { "$@" >"$WORK/last.log" 2>&1 || { cat "$WORK/last.log"; return 1; }; }
update() { quiet env "$@" cmake --build "$build" --target update_baselines; }
digest() { (cd "$baselines" && sha256sum -- *.json); }
# A baseline whose sass.instructions moved, as if the code or toolchain changed.
perturb() { sed -i 's/"sass.instructions": \([0-9]*\)/"sass.instructions": 9\1/' "$1"; }
results() { find "$build/tileperf" -name '*.result.json'; }

step_install() {
  rm -rf "$WORK"
  mkdir -p "$WORK"
  quiet cmake --install "$TILEPERF_BUILD" --prefix "$WORK/prefix"
  cp -r "$TILEPERF_SOURCE/tests/consumer/project" "$src"
  quiet cmake -S "$src" -B "$build" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
    -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
  grep -q "tileperf_DIR:PATH=$WORK/prefix/" "$build/CMakeCache.txt" ||
    fail "configured against another tileperf than the installed one"
  [[ $(ctest --test-dir "$build" -N | tail -1) == "Total Tests: 9" ]] ||
    fail "expected toolchain.probe, run.start, dump.batch.kernels, dump.scale, compile.batch and four perf tests"
}

step_baselines() {
  if ctest --test-dir "$build" -L perf >"$WORK/last.log" 2>&1; then
    fail "the gate passed without baselines"
  fi
  grep -q "perf.scale.f16_512.sm_120 .*Failed" "$WORK/last.log" || fail "no failing test listed"
  grep -q '"state": "new"' "$build/tileperf/scale/f16_512.sm_120.result.json" ||
    fail "a missing baseline is not reported as new"
  update
  [[ $(ls "$baselines"/*.sm_*[0-9].json | wc -l) == 4 ]] || fail "update_baselines did not write four baselines"
  [[ $(ls "$baselines"/*.detail.json | wc -l) == 4 ]] || fail "update_baselines did not write four detail files"
  quiet ctest --test-dir "$build" -L perf --output-junit "$WORK/junit.xml"
  [[ $(grep -c '<testcase name="perf.scale.' "$WORK/junit.xml") == 4 ]] ||
    fail "the JUnit file does not list the four perf tests"
  grep -q 'status="run"' "$WORK/junit.xml" || fail "the JUnit file shows no test run"
}

step_measurements() {
  ctest --test-dir "$build" -L perf --output-on-failure -V >"$WORK/last.log" 2>&1 || fail "the gate failed"
  grep -q "CTestMeasurement" "$WORK/last.log" && fail "measurements printed without TILEPERF_MEASUREMENTS"
  rm -rf "$build/Testing"
  quiet cmake "$build" -DTILEPERF_MEASUREMENTS=ON
  quiet ctest --test-dir "$build" -L perf -T Test
  quiet cmake "$build" -DTILEPERF_MEASUREMENTS=OFF
  local xml
  xml=$(find "$build/Testing" -name Test.xml | head -1)
  [[ -n $xml ]] || fail "ctest -T Test wrote no Test.xml"
  grep -q '<NamedMeasurement type="numeric/double" name="sass.instructions">' "$xml" ||
    fail "$xml has no sass.instructions measurement"
  grep -q '<NamedMeasurement type="numeric/double" name="regs">' "$xml" ||
    fail "$xml has no regs measurement"
}

step_partial() {
  local chosen=$baselines/f16_512.sm_90.json other=$baselines/f32_1024.sm_120.json
  perturb "$chosen"
  perturb "$other"
  local perturbed
  perturbed=$(grep '"sass.instructions"' "$other")
  local before
  before=$(digest)
  update TILEPERF_FILTER='^perf\.scale\.f16_512\.sm_90$'
  local after
  after=$(digest)
  # Only the selected baseline changed; the other perturbed one and the rest are byte-identical.
  diff <(grep -v f16_512.sm_90 <<<"$before") <(grep -v f16_512.sm_90 <<<"$after") >/dev/null ||
    fail "a filtered update touched another baseline"
  [[ $(grep f16_512.sm_90 <<<"$before") != $(grep f16_512.sm_90 <<<"$after") ]] ||
    fail "the selected baseline was not rewritten"
  update TILEPERF_LABEL=sm_120
  ! grep -qxF "$perturbed" "$other" || fail "TILEPERF_LABEL did not select sm_120"
  before=$(digest)
  update
  [[ $before == $(digest) ]] || fail "an update with nothing to change rewrote a baseline"
  grep -q "4 tests: 4 unchanged" "$WORK/last.log" || fail "the update summary does not say unchanged"
}

step_shards() {
  rm -rf "$WORK/shards" "$WORK/whole"
  results | xargs -r rm -f
  quiet ctest --test-dir "$build" -L perf
  mkdir -p "$WORK/whole"
  results | xargs -I{} cp --parents {} "$WORK/whole"
  for shard in 1 2 3; do
    results | xargs -r rm -f
    quiet ctest --test-dir "$build" -L perf -I "$shard,,3"
    mkdir -p "$WORK/shards/$shard"
    results | xargs -r -I{} cp --parents {} "$WORK/shards/$shard"
  done
  quiet "$tileperf" report "$WORK/whole" --json "$WORK/whole.json"
  quiet "$tileperf" report "$WORK/shards/1" "$WORK/shards/2" "$WORK/shards/3" \
    --json "$WORK/merged.json" --markdown "$WORK/merged.md" --html "$WORK/merged.html"
  cmp "$WORK/whole.json" "$WORK/merged.json" || fail "the merged shards differ from the whole run"
  grep -q '"pass": 4' "$WORK/merged.json" || fail "the merged report does not hold four passes"
}

# The gate against a candidate toolchain beside the pinned one, as a CI job
# runs it: a second build folder configured with the candidate's Python
# compares the project's baselines with the candidate's tools. Here the
# candidate is the same Python and the baselines are stamped with another
# tileiras release, which is what a candidate toolchain looks like to them.
step_candidate() {
  local candidate=$WORK/build-candidate pinned=$WORK/baselines-pinned
  rm -rf "$candidate" "$pinned"
  cp -r "$baselines" "$pinned"
  sed -i 's/"tileiras": "[^"]*"/"tileiras": "0.0.1"/' "$baselines"/*.sm_*[0-9].json
  local before
  before=$(digest)
  quiet cmake -S "$src" -B "$candidate" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
    -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
  if ctest --test-dir "$candidate" -L perf >"$WORK/last.log" 2>&1; then
    fail "the gate passed against baselines of another toolchain"
  fi
  [[ $before == $(digest) ]] || fail "the candidate's run wrote a baseline"
  "$tileperf" summary "$candidate/tileperf" >"$WORK/summary.log"
  local release="tileiras 0\.0\.1 -> [0-9.]*"
  grep -q "^4 tests: 4 toolchain changed$" "$WORK/summary.log" || fail "not 4 toolchain changed: $(cat "$WORK/summary.log")"
  grep -q "^toolchain changed in 4 test(s) ($release); compared under the usual policies, nothing written: 0 would regress, 0 would improve, 4 within limits$" \
    "$WORK/summary.log" || fail "the summary does not total the bump: $(cat "$WORK/summary.log")"
  # The command the candidate build's run record keeps, as its checks print it.
  grep -qx "  accept them all with: cmake --build [^ ]*$(basename "$candidate") --target update_baselines" "$WORK/summary.log" ||
    fail "the summary does not give the one command that accepts the bump: $(grep accept "$WORK/summary.log")"
  [[ $(grep -c "baseline was made with another toolchain" "$WORK/summary.log") == 0 ]] ||
    fail "the summary repeats the bump under every test"
  "$tileperf" preview "$candidate/tileperf" --markdown "$WORK/preview.md" >"$WORK/preview.log" ||
    fail "the preview of a bump that regresses nothing failed: $(cat "$WORK/preview.log")"
  grep -q "^\*\*0 would regress, 0 would improve, 4 within limits\*\*" "$WORK/preview.md" ||
    fail "the preview's Markdown does not total the bump"
  [[ $(grep -c "^<details><summary><b>perf\.scale\." "$WORK/preview.md") == 4 ]] ||
    fail "the preview's Markdown does not detail the four tests"
  rm -rf "$baselines"
  mv "$pinned" "$baselines"
}

step_interrupted() {
  update
  local fresh=$WORK/fresh
  rm -rf "$fresh"
  cp -r "$baselines" "$fresh"
  for delay in 0.4 0.8 1.2 1.6 2.0 2.4; do
    for f in "$baselines"/*.json; do perturb "$f"; done
    local old=$WORK/old
    rm -rf "$old"
    cp -r "$baselines" "$old"
    setsid cmake --build "$build" --target update_baselines >"$WORK/killed.log" 2>&1 &
    local pid=$!
    sleep "$delay"
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    local name
    for f in "$baselines"/*.json; do
      name=$(basename "$f")
      cmp -s "$f" "$old/$name" || cmp -s "$f" "$fresh/$name" ||
        fail "after a kill at ${delay}s, $name is neither the old nor the new baseline"
    done
    echo "killed after ${delay}s: $(for f in "$baselines"/*.json; do
      cmp -s "$f" "$fresh/$(basename "$f")" && echo new || echo old; done | sort | uniq -c | xargs)"
  done
  update
  for f in "$baselines"/*.json; do
    cmp -s "$f" "$fresh/$(basename "$f")" || fail "a full update after the kills differs"
  done
}

# The build's result cache, pruned: what it holds, nothing removed within the
# limits, everything past them; the gate then fills it again.
step_cache() {
  local cache=$build/tileperf/cache
  ctest --test-dir "$build" -L perf >"$WORK/last.log" 2>&1 || true  # verdicts do not matter here
  "$tileperf" cache "$cache" >"$WORK/cache.log"
  grep -q "^$cache: 4 entries, [0-9.]* MB; 0 unfinished" "$WORK/cache.log" || fail "not 4 entries: $(cat "$WORK/cache.log")"
  "$tileperf" cache "$cache" --max-age 1d --max-size 1G >"$WORK/cache.log"
  grep -q "kept 4 entries, .*; removed 0 entries" "$WORK/cache.log" || fail "a prune within the limits removed entries: $(cat "$WORK/cache.log")"
  TILEPERF_CACHE_DIR=$cache "$tileperf" cache --max-size 0 >"$WORK/cache.log"
  grep -q "kept 0 entries, 0.0 MB; removed 4 entries" "$WORK/cache.log" || fail "--max-size 0 kept entries: $(cat "$WORK/cache.log")"
  find "$build/tileperf" -name '*.memo.json' -delete  # else each check reuses its last result
  ctest --test-dir "$build" -L perf -V >"$WORK/last.log" 2>&1 || true
  grep -q "batch: 4 configuration(s): 0 in the cache, 4 compiled" "$WORK/last.log" ||
    fail "the gate did not compile again after a prune: $(cat "$WORK/last.log")"
  "$tileperf" cache "$cache" | grep -q ": 4 entries" || fail "the gate did not fill the pruned cache again"
}

step_subdirectory() {
  local sub=$WORK/build-subdirectory
  rm -rf "$sub"
  quiet cmake -S "$src" -B "$sub" -DTILEPERF_SOURCE_DIR="$TILEPERF_SOURCE" \
    -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
  quiet cmake --build "$sub" -j "$(nproc)"
  quiet ctest --test-dir "$sub" -L perf
  [[ $(ctest --test-dir "$sub" -N | tail -1) == "Total Tests: 9" ]] ||
    fail "tileperf's own tests leaked into the consumer"
}

# Without the toolchain: configure finds no cuTile, the perf tests cannot
# run. They are reported as not run with the reason, counted by the summary,
# and fail the run where every test must run (CI set).
step_missing_tools() {
  local bare=$WORK/build-missing-tools
  rm -rf "$bare"
  quiet cmake -S "$src" -B "$bare" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
    -DTILEPERF_PYTHON="$WORK/no-such-python"
  env -u CI ctest --test-dir "$bare" >"$WORK/last.log" 2>&1 ||
    fail "without CI, tests that cannot run are skipped, not failed: $(cat "$WORK/last.log")"
  # Without cuTile the kernel file's configurations cannot be listed either.
  grep -q "perf.scale.configs_unknown.sm_120 .*Skipped" "$WORK/last.log" || fail "no skipped test listed"
  "$tileperf" summary "$bare/tileperf" >"$WORK/summary.log"
  grep -q "^2 tests: 2 skipped$" "$WORK/summary.log" || fail "the summary does not count 2 skipped: $(cat "$WORK/summary.log")"
  grep -q "CudaTile[A-Za-z, ]* not found when the project was configured" "$WORK/summary.log" ||
    fail "the summary does not say why"
  if CI=true ctest --test-dir "$bare" --output-on-failure >"$WORK/last.log" 2>&1; then
    fail "with CI set, a run that measured nothing passed"
  fi
  grep -q "perf.scale.configs_unknown.sm_90: not run: CudaTile[A-Za-z, ]* not found .*the configurations of scale could not be listed" "$WORK/last.log" ||
    fail "the failure does not say why: $(cat "$WORK/last.log")"
  grep -q "tools/run" "$WORK/last.log" && fail "a consumer is told about tileperf's own tools/run"
  return 0
}

# Everything a cold run writes into the build folder, but the configure's.
cold() { rm -rf "$build/tileperf/cache"; find "$build/tileperf" -mindepth 2 -type f ! -name configs.json -delete; }
# Each perf test's state and metrics, as a listing of digests.
outcome() {
  local f
  for f in "$build"/tileperf/scale/*.result.json; do
    printf '%s %s %s\n' "$(basename "$f")" "$(jq -r .state "$f")" \
      "$(sha256sum <"${f%.result.json}.metrics.json" | cut -c1-64)"
  done
}

# Two gates at once in one build folder, cold, three times: both pass, and
# every test ends as in a serial run, metrics byte for byte; the run that
# comes second to a test waits for the first and says for whom.
step_concurrent() {
  cold
  quiet ctest --test-dir "$build" -L perf -j2
  outcome >"$WORK/serial.txt"
  local trial
  for trial in 1 2 3; do
    cold
    ctest --test-dir "$build" -L perf -j2 -V >"$WORK/a.log" 2>&1 & local a=$!
    ctest --test-dir "$build" -L perf -j2 -V >"$WORK/b.log" 2>&1 & local b=$!
    wait "$a" || { cat "$WORK/a.log"; fail "trial $trial: the first gate failed"; }
    wait "$b" || { cat "$WORK/b.log"; fail "trial $trial: the second gate failed"; }
    outcome >"$WORK/concurrent.txt"
    cmp -s "$WORK/serial.txt" "$WORK/concurrent.txt" ||
      fail "trial $trial: results differ from the serial run: $(diff "$WORK/serial.txt" "$WORK/concurrent.txt")"
    grep -h "waiting for .* held by pid [0-9]*: " "$WORK/a.log" "$WORK/b.log" >>"$WORK/waits.log" || true
  done
  [[ -s $WORK/waits.log ]] || fail "no run ever waited for the other: the test did not run them at once"
}

# The same with the locks switched off (TILEPERF_TEST_UNLOCKED=1, a switch for
# tests only; the Python dump driver keeps its own lock): the two gates
# collide: both compile batches compile every configuration at once, and no
# check or batch waits for the other run, which is what consumer.concurrent
# requires of a run at once, so that it is known to fail without the locks.
# (Their results stay those of a serial run: every file is renamed into
# place; the locks save the work done twice and order the runs.)
step_unlocked() {
  cold
  TILEPERF_TEST_UNLOCKED=1 ctest --test-dir "$build" -L perf -j2 -V >"$WORK/a.log" 2>&1 & local a=$!
  TILEPERF_TEST_UNLOCKED=1 ctest --test-dir "$build" -L perf -j2 -V >"$WORK/b.log" 2>&1 & local b=$!
  wait "$a" || true
  wait "$b" || true
  grep -h "tileperf: waiting for .* held by pid" "$WORK/a.log" "$WORK/b.log" &&
    fail "a check or batch waited for a lock that is switched off"
  local both
  both=$(grep -h "batch: 4 configuration(s): 0 in the cache, 4 compiled by" "$WORK/a.log" "$WORK/b.log" | wc -l)
  [[ $both == 2 ]] || fail "the two batches did not both compile every configuration (the runs did not overlap?)"
  echo "check.sh unlocked: both runs compiled all 4 configurations at once and neither waited"
}

# A rerun with nothing changed reuses each check's result (no tool, the
# same output); a changed baseline makes its check measure again.
step_memo() {
  quiet ctest --test-dir "$build" -L perf
  ctest --test-dir "$build" -L perf -V >"$WORK/first.log" 2>&1 || fail "the gate failed"
  local before
  before=$(stat -c '%n %Y.%y' "$build"/tileperf/scale/*.metrics.json)
  ctest --test-dir "$build" -L perf -V >"$WORK/last.log" 2>&1 || fail "the gate failed"
  [[ $(stat -c '%n %Y.%y' "$build"/tileperf/scale/*.metrics.json) == "$before" ]] ||
    fail "a rerun with nothing changed measured again"
  grep -q "perf.scale.f16_512.sm_120: pass" "$WORK/last.log" || fail "the reused result was not printed"
  cp "$baselines/f16_512.sm_120.json" "$WORK/kept.json"
  sed -i 's/"sass.instructions": [0-9]*/"sass.instructions": 1/' "$baselines/f16_512.sm_120.json"
  local code=0
  ctest --test-dir "$build" -R '^perf\.scale\.f16_512\.sm_120$' -V >"$WORK/last.log" 2>&1 || code=$?
  cp "$WORK/kept.json" "$baselines/f16_512.sm_120.json"
  [[ $code != 0 ]] || fail "a changed baseline was not compared again"
  grep -q "perf.scale.f16_512.sm_120: regressed" "$WORK/last.log" ||
    fail "the changed baseline's check did not compare: $(cat "$WORK/last.log")"
}

step=${1:?usage: check.sh install|baselines|measurements|partial|shards|candidate|interrupted|cache|concurrent|unlocked|memo|subdirectory|missing_tools}
"step_$step"
echo "check.sh $step: ok"
