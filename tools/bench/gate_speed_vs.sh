#!/usr/bin/env bash
# Two checkouts' gates side by side: each checkout's own gate_speed.sh (its
# committed project, its own .venv and build) run once at a time, A then B,
# RUNS times, each in a scratch folder of its own that is kept between runs
# (the clone and build are made once, not timed). Prints every run, then per
# phase the medians of A and B and the ratio B/A: cold, warm, and each
# kernel's change (the gate after a line inserted above its code) with its
# share of the cold run.
#
#   tools/bench/gate_speed_vs.sh [-r RUNS] [-j JOBS] [-k KERNELS] A B
#     A, B   checkouts (a worktree of another revision, say), each set up by
#            its own tools/run setup (their .venv is what they time)
#     -r  runs of each (3)   -j  ctest jobs (nproc)   -k  kernels changed ("all")
set -euo pipefail
runs=3 jobs=$(nproc) kernels=all
while getopts r:j:k: opt; do
  case $opt in
    r) runs=$OPTARG ;; j) jobs=$OPTARG ;; k) kernels=$OPTARG ;;
    *) sed -n '2,15p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -eq 2 ]] || { sed -n '2,15p' "$0" >&2; exit 2; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd)
for t in "$a" "$b"; do
  [[ -x $t/tools/bench/gate_speed.sh && -x $t/.venv/bin/python ]] ||
    { echo "gate_speed_vs.sh: error: $t: no tools/bench/gate_speed.sh or .venv (tools/run setup)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/tileperf-vs.XXXXXX)
trap 'rm -rf "$work"' EXIT
log() { printf 'gate_speed_vs: %s\n' "$*" >&2; }
for i in $(seq "$runs"); do
  for side in a b; do
    tree=${!side}
    log "run $i of $side ($tree, $(git -C "$tree" rev-parse --short HEAD))"
    "$tree/tools/bench/gate_speed.sh" -r 1 -j "$jobs" -k "$kernels" -d "$work/$side" 2>/dev/null |
      grep '^run 1:' | sed "s/^run 1:/$side $i:/" | tee -a "$work/runs.txt"
  done
done
python3 - "$work/runs.txt" "$a" "$b" <<'EOF'
import re, statistics, subprocess, sys
runs = {"a": [], "b": []}
for line in open(sys.argv[1]):
    side, rest = line.split(" ", 1)
    m = re.search(r"cold ([0-9.]+) s, warm ([0-9.]+) s", rest)
    changes = {k: (float(t), float(p)) for k, t, p in re.findall(r"(\w+) ([0-9.]+) s \(([0-9.]+)% of cold\)", rest)}
    runs[side].append({"cold": float(m.group(1)), "warm": float(m.group(2)), "changes": changes})
rev = {s: subprocess.run(["git", "-C", t, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
       for s, t in (("a", sys.argv[2]), ("b", sys.argv[3]))}
med = lambda xs: statistics.median(xs)
print(f"medians of {len(runs['a'])} runs each, A = {rev['a']}, B = {rev['b']}, alternating A, B:")
print("| phase | A | B | B/A | B: share of cold | B: change / share |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for phase in ("cold", "warm"):
    x, y = med([r[phase] for r in runs["a"]]), med([r[phase] for r in runs["b"]])
    print(f"| {phase} | {x:.2f} s | {y:.2f} s | {y / x:.2f}x | | |")
for k in sorted(runs["a"][0]["changes"]):
    x = med([r["changes"][k][0] for r in runs["a"]])
    y = med([r["changes"][k][0] for r in runs["b"]])
    share = med([r["changes"][k][1] / 100 * r["cold"] for r in runs["b"]])
    print(f"| change {k} | {x:.1f} s | {y:.1f} s | {y / x:.2f}x | {share:.1f} s | {y / share:.2f}x |")
EOF
