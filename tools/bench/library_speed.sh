#!/usr/bin/env bash
# Wall time of the whole gate of a library example (ctest -L perf over every
# configuration), cold (a fresh build folder: no bytecode, no dump stamps, an
# empty result cache) and warm (the same again, nothing changed), with the
# installed tileperf of this clone's build.
#   tools/bench/library_speed.sh EXAMPLE [JOBS]     (EXAMPLE: flashinfer or tilegym)
# Prints the tests, each phase's wall time and the load when it started.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
example=${1:?usage: library_speed.sh flashinfer|tilegym [JOBS]} jobs=${2:-$(nproc)}
[[ -d $top/examples/$example ]] || { echo "library_speed.sh: no examples/$example" >&2; exit 2; }
[[ -x $top/build/tools/tileperf ]] || { echo "library_speed.sh: build tileperf first (tools/run setup)" >&2; exit 2; }
dir=$(mktemp -d /tmp/tileperf-library.XXXXXX)
trap 'rm -rf "$dir"' EXIT
unset TILEPERF_CACHE_URL TILEPERF_CACHE_WRITE TILEPERF_UPDATE_BASELINES CI
export TILEPERF_CACHE_DIR=$dir/cache
cmake --install "$top/build" --prefix "$dir/prefix" >/dev/null
cmake -S "$top/examples/$example" -B "$dir/build" -DCMAKE_PREFIX_PATH="$dir/prefix" \
  -DTILEPERF_PYTHON="$top/.venv/bin/python" >/dev/null
tests=$(ctest --test-dir "$dir/build" -N -L perf | grep -c ' perf\.')
phase() {
  local load start end rc=0
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date +%s.%N)
  ctest --test-dir "$dir/build" -L perf -j "$jobs" >"$dir/$1.log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  printf '%-5s %7.1f s  (exit %s, load %s)\n' "$1" "$(echo "$end - $start" | bc)" "$rc" "$load"
}
echo "$example: $tests perf tests, -j $jobs on $(nproc) cores"
phase cold
phase warm
