#!/usr/bin/env bash
# `tileperf history` and `tileperf bisect` on a real git history: a consumer
# project (two kernels, tileperf installed as a package) whose twelve commits
# are made here, each baseline written by update_baselines with the real
# toolchain. One step per call (each a CTest test):
#
#   check.sh repo            install tileperf, make the repository's twelve commits
#   check.sh history         history reports each change at its commit, marks the
#                            toolchain bump and the tuning change, flags the drift;
#                            the summary of a gate run names it
#   check.sh bisect          bisect names the regressing commit (metric and verdict),
#                            skips the commit that does not build, and leaves the
#                            repository's checkout and build as they were
#
# The commits (kernel poly, configuration f32_1024, sm_120; kernel scale never
# changes):
#   c1  poly and scale with baselines        c7  poly: fourth-order term
#   c2  poly: constant term                  c8  poly: exp of the polynomial (regresses)
#   c3  notes (no baseline)                  c9  poly: work in progress (does not build)
#   c4  poly: times x                        c10 poly: tile of 2048 (a tuning change)
#   c5  toolchain bump                       c11 notes (no baseline)
#   c6  poly: third-order term               c12 scale: a comment
# The project's policy lets sass.instructions grow 10% a step: c2, c4, c6 and
# c7 are each within it, together they are not (drift); c8 is past it.
#
# The toolchain bump is staged, and only in the baselines' stamps: one
# toolchain is installed here, so the baselines of c1 to c4 are written by
# update_baselines and then have their tool versions set to 13.4.92, which is
# what update_baselines run with that older release would have stamped on
# them (their metrics are this toolchain's, not 13.4.92's). At c5,
# update_baselines with the installed tools rewrites every baseline with the
# real versions, as it does after a bump; that commit moves no metric.
#
# Environment: TILEPERF_BUILD (tileperf's build folder), TILEPERF_SOURCE,
# TILEPERF_PYTHON (with cuda-tile and pytest), WORK (scratch folder).
set -euo pipefail
: "${TILEPERF_BUILD:?}" "${TILEPERF_SOURCE:?}" "${TILEPERF_PYTHON:?}" "${WORK:?}"
repo=$WORK/repo
build=$WORK/build
tileperf=$WORK/prefix/bin/tileperf
unset TILEPERF_UPDATE_BASELINES TILEPERF_FILTER TILEPERF_LABEL TILEPERF_CACHE_DIR
export GIT_AUTHOR_NAME=tileperf GIT_AUTHOR_EMAIL=tileperf@localhost
export GIT_COMMITTER_NAME=tileperf GIT_COMMITTER_EMAIL=tileperf@localhost

fail() { echo "check.sh $step: $*" >&2; exit 1; }
quiet() { "$@" >"$WORK/last.log" 2>&1 || { cat "$WORK/last.log"; return 1; }; }
git_() { git -C "$repo" "$@"; }
sha() { cat "$WORK/commits/$1"; }
short() { sha "$1" | cut -c1-7; }
update() { quiet cmake --build "$build" --target update_baselines; }

# The kernel poly with `acc` computed as given, over tiles of `tile`.
poly() {
  local acc=$1 tile=${2:-1024}
  cat >"$repo/kernels/poly.py" <<EOF
"""A polynomial of x, evaluated term by term."""

import cuda.tile as ct

from tileperf_dump import Config, array


@ct.kernel
def poly(x, y, TILE: ct.Constant[int]):
    block = ct.bid(0)
    v = ct.astype(ct.load(x, index=(block,), shape=(TILE,)), ct.float32)
    acc = $acc
    ct.store(y, index=(block,), tile=ct.astype(acc, y.dtype))


CONFIGS = {
    "f32_1024": Config(poly, [array(ct.float32, 1), array(ct.float32, 1), $tile]),
}
EOF
}

# The stamps an older release would have written (see the top of this file).
stamp_older_release() {
  sed -i -E 's/"(cuobjdump|nvdisasm|tileiras|tileirdisasm)": "[^"]*"/"\1": "13.4.92"/' \
    "$repo"/baselines/*/*.sm_120.json
}

commit() {
  local name=$1 subject=$2
  git_ add -A
  git_ commit -q -m "$subject"
  git_ rev-parse HEAD >"$WORK/commits/$name"
}

# The project's policy: 10% a step for counts and sizes, none for MUFU work.
write_checks() {
  mkdir -p "$repo/checks"
  cat >"$repo/checks/default.json" <<'EOF'
{
  "why": "a project that accepts steps of up to 10%: drift is what adds up",
  "rules": [
    {"metric": "sass.mufu", "direction": "lower", "tolerance": "0"},
    {"metric": "sass.mufu.*", "direction": "lower", "tolerance": "0"},
    {"metric": "local.bytes", "direction": "lower", "tolerance": "0"},
    {"metric": "sass.opcode.*", "direction": "info"},
    {"metric": "remarks.*", "direction": "info"},
    {"metric": "tileir.*", "direction": "info"},
    {"metric": "loop.*", "direction": "info"},
    {"metric": "cost.*", "direction": "info"},
    {"metric": "*", "direction": "lower", "tolerance": "10%"}
  ]
}
EOF
}

step_repo() {
  rm -rf "$WORK"
  mkdir -p "$WORK/commits" "$repo/kernels"
  quiet cmake --install "$TILEPERF_BUILD" --prefix "$WORK/prefix"
  git init -q "$repo"
  cp "$TILEPERF_SOURCE/tests/consumer/project/kernels/scale.py" "$repo/kernels/"
  cat >"$repo/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(history_consumer NONE)
enable_testing()
find_package(tileperf 0.1 REQUIRED)
tileperf_add_kernel_tests(KERNEL poly SOURCE kernels/poly.py ARCHS sm_120)
tileperf_add_kernel_tests(KERNEL scale SOURCE kernels/scale.py ARCHS sm_120)
EOF
  printf 'build/\n__pycache__/\n' >"$repo/.gitignore"
  write_checks
  poly "v * 0.5"
  quiet cmake -S "$repo" -B "$build" -DCMAKE_PREFIX_PATH="$WORK/prefix" -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
  update && stamp_older_release && commit c1 "poly and scale kernels, with baselines"
  poly "v * 0.5 + 0.25"
  update && stamp_older_release && commit c2 "poly: a constant term"
  echo "poly evaluates a polynomial; scale scales." >"$repo/NOTES"
  commit c3 "notes on the kernels"
  poly "(v * 0.5 + 0.25) * v"
  update && stamp_older_release && commit c4 "poly: times x"
  update && commit c5 "toolchain: the 13.5.37 release"
  [[ -n $(git_ show --stat --format= HEAD -- baselines) ]] || fail "the bump rewrote no baseline"
  poly "((v * 0.5 + 0.25) * v + 0.125) * v"
  update && commit c6 "poly: a third-order term"
  poly "(((v * 0.5 + 0.25) * v + 0.125) * v + 0.0625) * v"
  update && commit c7 "poly: a fourth-order term"
  poly "ct.exp((((v * 0.5 + 0.25) * v + 0.125) * v + 0.0625) * v)"
  update && commit c8 "poly: the exponential of the polynomial"
  poly "ct.exp((((v * 0.5 + 0.25) * v + 0.125) * v + 0.0625) * v"
  commit c9 "poly: work in progress"
  poly "ct.exp((((v * 0.5 + 0.25) * v + 0.125) * v + 0.0625) * v)" 2048
  update && commit c10 "poly: tiles of 2048"
  echo "poly runs on tiles of 2048." >>"$repo/NOTES"
  commit c11 "notes: the tile size"
  sed -i '1a # y = alpha * x' "$repo/kernels/scale.py"
  commit c12 "scale: a comment"
  [[ $(git_ rev-list --count HEAD) == 12 ]] || fail "expected twelve commits"
  [[ -z $(git_ status --porcelain) ]] || fail "the repository is not clean: $(git_ status --porcelain)"
}

# The history's JSON, asserted with Python (the interpreter the gate uses).
check_json() {
  "$TILEPERF_PYTHON" - "$WORK/history.json" "$@" <<'EOF'
import json, sys
h = json.load(open(sys.argv[1]))
c = dict(a.split("=") for a in sys.argv[2:])
tests = {t["test"]: t for t in h["tests"]}
def fail(msg):
    sys.exit("history.json: " + msg)
poly = tests.get("perf.poly.f32_1024.sm_120") or fail("no series for poly")
series = {m["metric"]: m for m in poly["metrics"]}
inst = series.get("sass.instructions") or fail("no sass.instructions series")
at = [p["commit"] for p in inst["points"]]
want = [c[k] for k in ("c1", "c2", "c4", "c6", "c7", "c8", "c10")]
if at != want:
    fail(f"sass.instructions changed at {at}, expected {want}")
verdicts = [p["verdict"] for p in inst["points"]]
if verdicts[1:5] != ["ok"] * 4 or verdicts[5] != "regressed":
    fail(f"verdicts {verdicts}: the four drift steps must be within the limit, c8 past it")
events = {(e["commit"], e["signature"], bool(e["toolchain"])) for e in poly["events"]}
if (c["c5"], "none", True) not in events:
    fail(f"no toolchain bump at c5 in {events}")
if (c["c10"], "tuning", False) not in events:
    fail(f"no tuning change at c10 in {events}")
tuning = [e for e in poly["events"] if e["commit"] == c["c10"]][0]
if tuning["signature_changes"] != ["parameters[2].value: 1024 -> 2048"]:
    fail(f"the tuning change names {tuning['signature_changes']}")
drifts = [d for d in poly["drifts"] if d["metric"] == "sass.instructions"]
if len(drifts) != 1:
    fail(f"expected one drift of sass.instructions, found {drifts}")
d = drifts[0]
if (d["from"], d["to"], d["crossed"]) != (c["c1"], c["c7"], c["c6"]):
    fail(f"the drift runs {d['from']}..{d['to']} crossing at {d['crossed']}, expected c1..c7 crossing at c6")
if d["steps"] != [c["c2"], c["c4"], c["c6"], c["c7"]]:
    fail(f"the drift's steps are {d['steps']}")
scale = tests.get("perf.scale.f16_512.sm_120")
if scale and scale["metrics"]:
    fail("scale never changed, yet has series")
EOF
}

commit_vars() { for c in c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12; do echo "$c=$(sha $c)"; done; }

step_history() {
  cd "$repo"
  "$tileperf" history --json "$WORK/history.json" --html "$WORK/history.html" >"$WORK/history.txt" ||
    fail "history failed: $(cat "$WORK/history.txt")"
  cat "$WORK/history.txt"
  check_json $(commit_vars)
  grep -q "^  toolchain at $(short c5): cuobjdump 13.4.92 -> [0-9.]*, nvdisasm 13.4.92 -> " "$WORK/history.txt" ||
    fail "the text does not mark the toolchain bump"
  grep -q "^  tuning at $(short c10): parameters\[2\].value: 1024 -> 2048$" "$WORK/history.txt" ||
    fail "the text does not mark the tuning change"
  grep -q "^  drift: sass.instructions [0-9]* -> [0-9]* (+[0-9]*, +[0-9.]*%; limit +[0-9.]*) over 4 step(s) each within it, from $(short c1) to $(short c7), past the limit at $(short c6): $(short c2) +[0-9]*, $(short c4) +[0-9]*, $(short c6) +[0-9]*, $(short c7) +[0-9]*$" \
    "$WORK/history.txt" || fail "the text does not flag the drift"
  grep -q "^    $(short c8) [0-9-]* *[0-9]* *+[0-9]* *+[0-9.]*% *regressed .*poly: the exponential" "$WORK/history.txt" ||
    fail "the text does not show the regressing commit"
  # The summary of a gate run names the drift under the test's line.
  ctest --test-dir "$build" -L perf >"$WORK/gate.log" 2>&1 || fail "the gate failed at HEAD: $(cat "$WORK/gate.log")"
  "$tileperf" summary "$build/tileperf" --history "$WORK/history.json" >"$WORK/summary.txt"
  grep -A3 "^perf.poly.f32_1024.sm_120 " "$WORK/summary.txt" | grep -q "^    drift: sass.instructions [0-9]* -> [0-9]* .* from $(short c1) to $(short c7)" ||
    fail "the summary does not name the drift: $(cat "$WORK/summary.txt")"
  # So does the merge-request report, in Markdown and HTML.
  "$tileperf" report "$build/tileperf" --history "$WORK/history.json" --markdown "$WORK/report.md" \
    --html "$WORK/report.html" || fail "report --history failed"
  grep -q "^### Drift over the baselines' history: [1-9][0-9]* run(s)$" "$WORK/report.md" ||
    fail "the Markdown report has no drift section: $(cat "$WORK/report.md")"
  grep -q "^- \`perf.poly.f32_1024.sm_120\`: sass.instructions [0-9]* -> [0-9]* .* from $(short c1) to $(short c7)" \
    "$WORK/report.md" || fail "the Markdown report does not name the drift: $(cat "$WORK/report.md")"
  grep -q "<section id=\"drift\">" "$WORK/report.html" && grep -q "<td>perf.poly.f32_1024.sm_120</td><td>sass.instructions" \
    "$WORK/report.html" || fail "the HTML report does not show the drift"
  # A range: the state at c4 is where it starts.
  "$tileperf" history "$(sha c4)..HEAD" --test poly --metric sass.instructions >"$WORK/range.txt"
  grep -q "^    $(short c4) [0-9-]* *[0-9]* .*start" "$WORK/range.txt" || fail "a range does not start at its base: $(cat "$WORK/range.txt")"
  grep -q "$(short c2)" "$WORK/range.txt" && fail "a range shows a commit before it"
  # Within the range the drift starts at c4: c6 and c7 alone add up past the limit.
  grep -q "^  drift: sass.instructions [0-9]* -> [0-9]* .* over 2 step(s) each within it, from $(short c4) to $(short c7), past the limit at $(short c7): " \
    "$WORK/range.txt" || fail "the range's drift is not from c4 to c7: $(cat "$WORK/range.txt")"
}

# Whatever bisect does, the repository's own checkout and build stay as they were.
snapshot() {
  { git_ rev-parse HEAD; git_ status --porcelain; git_ worktree list --porcelain | grep -c '^worktree';
    find "$build" -newer "$build/CMakeCache.txt" -type f | sort | md5sum; } >"$WORK/$1.state"
}

step_bisect() {
  cd "$repo"
  touch -d '1 hour ago' "$build/CMakeCache.txt"
  snapshot before
  local args=(-- -DCMAKE_PREFIX_PATH="$WORK/prefix" -DTILEPERF_PYTHON="$TILEPERF_PYTHON")
  "$tileperf" bisect --good "$(sha c7)" --bad HEAD --test perf.poly.f32_1024.sm_120 --metric sass.instructions \
    --work "$WORK/bisect" --jobs 2 "${args[@]}" >"$WORK/bisect.txt" 2>&1 || fail "bisect failed: $(cat "$WORK/bisect.txt")"
  cat "$WORK/bisect.txt"
  grep -q "^first commit that changed the sass.instructions of perf.poly.f32_1024.sm_120: $(sha c8 | cut -c1-12) .* poly: the exponential of the polynomial$" \
    "$WORK/bisect.txt" || fail "bisect did not name c8"
  grep -q "^  sass.instructions: [0-9]* at $(sha c7 | cut -c1-12) -> [0-9]* (+[0-9]*, +[0-9.]*%)$" "$WORK/bisect.txt" ||
    fail "bisect does not give the values on both sides"
  grep -q "^skipped $(sha c9 | cut -c1-12): does not configure (" "$WORK/bisect.txt" ||
    fail "the commit that does not build is not skipped"
  grep -q "poly.py:12 .*acc = ct.exp" "$WORK/bisect.txt" || fail "bisect does not show the source line that moved"
  grep -q "(cached)" "$WORK/bisect.txt" || fail "no step was served by the shared result cache"
  # The verdict against c7's baseline, reusing the work folder (and its
  # cache), is the check's: HEAD also retunes the tile (c10, a tuning change
  # judged by the launch estimate alone, which the exponential of a
  # memory-bound kernel leaves within its limit), so HEAD passes against it.
  "$tileperf" bisect --good "$(sha c7)" --bad HEAD --test perf.poly.f32_1024.sm_120 --work "$WORK/bisect" \
    --jobs 2 "${args[@]}" >"$WORK/verdict.txt" 2>&1 || fail "bisect failed: $(cat "$WORK/verdict.txt")"
  cat "$WORK/verdict.txt"
  grep -q "^the verdict against the good baseline is pass at both revisions: nothing to bisect$" "$WORK/verdict.txt" ||
    fail "the verdict of HEAD, a tuning change, is not judged as the check judges it"
  # Before the retuning, c8 is the regression.
  "$tileperf" bisect --good "$(sha c7)" --bad "$(sha c8)" --test perf.poly.f32_1024.sm_120 --work "$WORK/bisect" \
    --jobs 2 "${args[@]}" >"$WORK/verdict.txt" 2>&1 || fail "bisect failed: $(cat "$WORK/verdict.txt")"
  cat "$WORK/verdict.txt"
  grep -q "^first commit that changed the verdict against the good baseline of perf.poly.f32_1024.sm_120: $(sha c8 | cut -c1-12) " \
    "$WORK/verdict.txt" || fail "the verdict bisection did not name c8"
  grep -q "^  verdict: pass at $(sha c7 | cut -c1-12) -> regressed$" "$WORK/verdict.txt" || fail "no verdicts on both sides"
  snapshot after
  cmp -s "$WORK/before.state" "$WORK/after.state" ||
    fail "bisect changed the repository's checkout or build: $(diff "$WORK/before.state" "$WORK/after.state")"
}

step=${1:?usage: check.sh repo|history|bisect}
"step_$step"
echo "check.sh $step: ok"
