#!/usr/bin/env bash
# The gate at scale: installs tileperf from a build folder, generates a suite
# of >= 1,000 configurations (tools/bench/scale_suite.py: the shipped kernels
# with generated tile and dtype variants, no baselines), configures it, and
# times a cold run (empty result cache, no bytecode) and a warm rerun.
# Prints wall time, the peak resident memory of the largest process (GNU
# time's maximum over ctest and every test it ran), the size of the cache and
# of the work folder, and the configure time.
#
#   tools/bench/scale_run.sh BUILD [DIR] [-- scale_suite.py options]
#     BUILD  a built tileperf build folder (e.g. build)
#     DIR    scratch folder (default: a new one under /tmp, kept)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build_in=$(cd "${1:?usage: scale_run.sh BUILD [DIR] [-- options]}" && pwd)
shift
dir=""
if [[ $# -gt 0 && $1 != -- ]]; then dir=$1; shift; fi
[[ ${1:-} == -- ]] && shift
[[ -n $dir ]] || dir=$(mktemp -d /tmp/tileperf-scale.XXXXXX)
python=$top/.venv/bin/python
jobs=$(nproc)
export TILEPERF_CACHE_DIR=$dir/cache
unset TILEPERF_UPDATE_BASELINES CI

now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }

rm -rf "$dir/prefix" "$dir/suite" "$dir/build" "$dir/cache"
cmake --install "$build_in" --prefix "$dir/prefix" >/dev/null
"$python" "$top/tools/bench/scale_suite.py" "$dir/suite" "$@"
t=$(now)
cmake -S "$dir/suite" -B "$dir/build" -DCMAKE_PREFIX_PATH="$dir/prefix" \
  -DTILEPERF_PYTHON="$python" >"$dir/configure.log" 2>&1
configure=$(elapsed "$t")
tests=$(ctest --test-dir "$dir/build" -N -L perf | tail -1)

# run <name>: the gate, timed by GNU time; prints "wall peak_kib cpu_seconds".
run() {
  local t rc=0
  t=$(now)
  /usr/bin/time -f '%M %U %S' -o "$dir/$1.time" \
    ctest --test-dir "$dir/build" -L perf -j "$jobs" --output-junit "$dir/$1.xml" \
    >"$dir/$1.log" 2>&1 || rc=$?
  echo "$(elapsed "$t") $(tail -1 "$dir/$1.time" | awk '{print $1, $2 + $3}')"
}

read -r cold cold_kib cold_cpu < <(run cold)
read -r warm warm_kib warm_cpu < <(run warm)
summary=$("$dir/prefix/bin/tileperf" summary "$dir/build/tileperf" 2>/dev/null | tail -1 || true)
printf '%s (%s); -j %d on %d cores, load %s\n' "$tests" "$summary" "$jobs" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  configure  %8.1f s\n' "$configure"
printf '  cold       %8.1f s   %8.1f s CPU   peak RSS of one process %d MiB\n' "$cold" "$cold_cpu" \
  "$((cold_kib / 1024))"
printf '  warm       %8.1f s   %8.1f s CPU   peak RSS of one process %d MiB\n' "$warm" "$warm_cpu" \
  "$((warm_kib / 1024))"
printf '  cache      %8s     work folder %s\n' "$(du -sh "$dir/cache" | cut -f1)" \
  "$(du -sh "$dir/build/tileperf" | cut -f1)"
echo "logs in $dir"
