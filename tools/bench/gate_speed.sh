#!/usr/bin/env bash
# Wall time of the gate (ctest -L perf) side by side, in one run:
#   cold    no bytecode, no dump stamps, an empty result cache: dump, compile,
#           disassemble and measure every perf test
#   warm    the same again with nothing changed: stamps and cache hits
#   change  one kernel's file edited (a line inserted above its code, so that
#           every line moves and each of its configurations compiles anew),
#           for each kernel -k names, the file put back (and the gate run
#           again, untimed) after each
#   floor   the tool invocations of a cold run as the gate made them before it
#           batched the disassembly (tileiras, nvdisasm, cuobjdump -res-usage,
#           tileirdisasm per test) in a plain xargs loop with the same
#           parallelism, output thrown away, no parsing
#   compiler  tileiras alone for every configuration and architecture, with
#           the gate's flags and the same parallelism: what no gate can beat
# RUNS times each, alternating, on a clone of the committed project in a
# scratch folder (the working tree is never touched). Prints each run, the
# medians and the ratios the issue sets targets for.
#
#   tools/bench/gate_speed.sh [-r RUNS] [-j JOBS] [-k KERNEL] [-d DIR] [-b BUILD]
#     -r  runs of each phase (3)         -j  ctest/xargs jobs (nproc)
#     -k  the kernels the change edits, comma-separated, or "all": every
#         shipped kernel file (softmax)
#     -d  scratch folder, kept and reused when given (default: a new one, removed)
#     -b  an existing build folder to time instead of a fresh clone's; the
#         kernel file of its source tree is edited and put back with git
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=3 jobs=$(nproc) kernel=softmax dir="" keep=0 given_build=""
while getopts r:j:k:d:b: opt; do
  case $opt in
    r) runs=$OPTARG ;; j) jobs=$OPTARG ;; k) kernel=$OPTARG ;; d) dir=$OPTARG keep=1 ;;
    b) given_build=$(cd "$OPTARG" && pwd) ;;
    *) sed -n '2,26p' "$0" >&2; exit 2 ;;
  esac
done
python=$top/.venv/bin/python
[[ -x $python ]] || { echo "gate_speed.sh: error: $python missing: run tools/run setup" >&2; exit 2; }
if [[ -z $dir ]]; then dir=$(mktemp -d /tmp/tileperf-bench.XXXXXX); fi
[[ $keep == 1 ]] || trap 'rm -rf "$dir"' EXIT
src=$dir/src build=$dir/build cache=$dir/cache floor=$dir/floor
unset TILEPERF_CACHE_URL TILEPERF_CACHE_WRITE
export TILEPERF_CACHE_DIR=$cache
unset TILEPERF_UPDATE_BASELINES CI

say() { printf 'gate_speed: %s\n' "$*" >&2; }

if [[ -n $given_build ]]; then
  build=$given_build
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
elif [[ ! -d $src ]]; then
  git clone -q "$top" "$src"
fi
if [[ ! -x $build/tools/tileperf ]]; then
  say "configuring and building tileperf in $build (not timed)"
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTILEPERF_BUILD_TESTS=OFF \
    "-DTILEPERF_PYTHON=$python" >/dev/null
  cmake --build "$build" -j "$jobs" --target tileperf >/dev/null
fi
if [[ $kernel == all ]]; then
  kernels=()
  for f in "$src"/kernels/*.py; do grep -q '^CONFIGS = ' "$f" && kernels+=("$(basename "$f" .py)"); done
else
  IFS=, read -r -a kernels <<<"$kernel"
fi
for k in "${kernels[@]}"; do
  [[ -f $src/kernels/$k.py ]] || { echo "gate_speed.sh: error: no kernel file $src/kernels/$k.py" >&2; exit 2; }
done
git -C "$src" checkout -q -- kernels

now() { date +%s.%N; }
# gate <junit>: the gate, its wall time on stdout (failing tests are fine here).
gate() {
  local start end
  start=$(now)
  ctest --test-dir "$build" -L perf -j "$jobs" --output-junit "$1" >/dev/null 2>&1 || true
  end=$(now)
  echo "$end - $start" | bc
}

# The tools' invocations of every perf test, as the gate makes them (each
# kernel's record, <work>/<kernel>/configs.json, lists its tests' bytecode).
floor_commands() {
  "$python" - "$build" "$floor" "$1" <<'EOF'
import json, pathlib, shlex, sys
build, floor = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
tc = json.loads((build / "tileperf" / "toolchain.json").read_text())["tools"]
for record in sorted((build / "tileperf").glob("*/configs.json")):
    for t in json.loads(record.read_text())["tests"]:
        kernel, config, arch, bc = record.parent.name, t["config"], t["arch"], t["bytecode"]
        metrics = build / "tileperf" / kernel / f"{config}.{arch}.metrics.json"
        flags = json.loads(metrics.read_text())["flags"]["tileiras"]
        out = floor / f"{kernel}.{config}.{arch}"
        tileiras = [tc["tileiras"]["path"], bc, "-o", f"{out}.cubin"] + flags + [
            f"--remarks-output-file={out}.remarks.yaml"]
        steps = [" ".join(map(shlex.quote, tileiras)),
                 f"{shlex.quote(tc['nvdisasm']['path'])} -ndf -pb -hex -novliw {out}.cubin",
                 f"{shlex.quote(tc['cuobjdump']['path'])} -res-usage {out}.cubin",
                 f"{shlex.quote(tc['tileirdisasm']['path'])} -g {shlex.quote(bc)}"]
        line = " >/dev/null && ".join(steps) + " >/dev/null"
        print(line if sys.argv[3] == "tools" else steps[0] + " >/dev/null")
EOF
}

floor_run() {
  local start end
  rm -rf "$floor" && mkdir -p "$floor"
  start=$(now)
  tr '\n' '\0' <"$1" | env -u CUDA_HOME -u CUDA_PATH xargs -0 -P "$jobs" -n 1 bash -c
  end=$(now)
  echo "$end - $start" | bc
}

clear_outputs() {
  rm -rf "$cache"
  find "$build/tileperf" -mindepth 2 -type f ! -name configs.json -delete
}

# share <junit> <kernel>: the kernel's share of the run's summed test time
# (right after the run: the compile batch's record of each configuration's
# tileiras time is the latest run's).
share() {
  "$python" - "$1" "$2" "$build/tileperf/compile-batch.json.all.seconds.json" <<'EOF'
import json, pathlib, re, sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
times = pathlib.Path(sys.argv[3])
compiled = json.loads(times.read_text()) if times.is_file() else {}
total = mine = 0.0
for c in cases:
    t, name = float(c.get("time", 0)), c.get("name")
    if name.startswith("dump.batch.") or name == "compile.batch" or name.startswith("compile.batch."):
        # A batch exported or compiled every kernel file: the kernel's part
        # of its time, in proportion to the seconds of each it reports.
        total += t
        out = c.findtext("system-out") or ""
        took = {}
        pairs = re.findall(r"dump\.(\w+): exported in ([0-9.]+) s", out) if name.startswith("dump.") else \
            [(test.split(".")[1], s) for test, s in compiled.items()]
        for k, s in pairs:
            took[k] = took.get(k, 0) + float(s)
        if took.get(sys.argv[2]):
            mine += t * took[sys.argv[2]] / sum(took.values())
    elif name.startswith("perf.") or name.startswith("dump."):
        total += t
        if name.split(".")[1] == sys.argv[2]:
            mine += t
print(mine / total if total else 0)
EOF
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Per kernel k: change_<k> and share_<k> hold each run's values.
cold=() warm=() floor_t=() compiler_t=()
declare -A change share_of
for i in $(seq "$runs"); do
  git -C "$src" checkout -q -- kernels
  clear_outputs
  c=$(gate "$dir/cold.xml")
  declare -A s_now=()
  for k in "${kernels[@]}"; do s_now[$k]=$(share "$dir/cold.xml" "$k"); done
  [[ -f $dir/floor.txt ]] || floor_commands tools >"$dir/floor.txt"
  [[ -f $dir/compiler.txt ]] || floor_commands compiler >"$dir/compiler.txt"
  w=$(gate "$dir/warm.xml")
  line=""
  for k in "${kernels[@]}"; do
    s=${s_now[$k]}
    sed -i '0,/^import /s//#\nimport /' "$src/kernels/$k.py"   # every line of the kernel moves down one
    t=$(gate "$dir/change.xml")
    git -C "$src" checkout -q -- kernels
    gate "$dir/settle.xml" >/dev/null   # the file put back: its dump again, every compilation a hit
    change[$k]+="$t " share_of[$k]+="$s "
    line+=$(printf ', %s %.1f s (%.1f%% of cold)' "$k" "$t" "$(echo "$s * 100" | bc -l)")
  done
  f=$(floor_run "$dir/floor.txt")
  p=$(floor_run "$dir/compiler.txt")
  cold+=("$c") warm+=("$w") floor_t+=("$f") compiler_t+=("$p")
  printf 'run %d: cold %.1f s, warm %.2f s, floor %.1f s, compiler %.1f s; changed%s\n' \
    "$i" "$c" "$w" "$f" "$p" "$line"
done
mc=$(median "${cold[@]}") mw=$(median "${warm[@]}")
mf=$(median "${floor_t[@]}") mp=$(median "${compiler_t[@]}")
n=$(wc -l <"$dir/floor.txt")
printf 'median of %d, %d perf tests, -j %d on %d cores (load %s):\n' "$runs" "$n" "$jobs" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  cold     %7.1f s   %.2fx floor, %.2fx compiler   (targets <= 0.6x and <= 1.1x)\n' "$mc" \
  "$(echo "$mc / $mf" | bc -l)" "$(echo "$mc / $mp" | bc -l)"
printf '  warm     %7.2f s   %.1f%% of cold                (target <= 1 s)\n' "$mw" "$(echo "100 * $mw / $mc" | bc -l)"
worst=0
for k in "${kernels[@]}"; do
  # shellcheck disable=SC2086
  mk=$(median ${change[$k]}) ms=$(median ${share_of[$k]})
  r=$(echo "$mk / ($ms * $mc)" | bc -l)
  (( $(echo "$r > $worst" | bc -l) )) && worst=$r
  printf '  change   %7.1f s   %.2fx %s'"'"'s share of cold, %.1f s (target <= 1.3x)\n' "$mk" "$r" "$k" \
    "$(echo "$ms * $mc" | bc -l)"
done
[[ ${#kernels[@]} -gt 1 ]] && printf '  change   the largest ratio of the %d kernels: %.2fx (target <= 1.3x)\n' \
  "${#kernels[@]}" "$worst"
printf '  floor    %7.1f s   tileiras, nvdisasm, cuobjdump -res-usage, tileirdisasm per test\n' "$mf"
printf '  compiler %7.1f s   tileiras alone per test\n' "$mp"
