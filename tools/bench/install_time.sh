#!/usr/bin/env bash
# Wall time of `tools/run install PREFIX` (the tileperf command and its CMake
# package, for a project that uses them) from an empty build-install/ and
# prefix, with the Python environment already set up, RUNS times. Prints each
# run, the median and the machine's cores and load when it started.
#   tools/bench/install_time.sh [RUNS]   (default 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
# The Python environment exists before the clock starts (install checks it).
[[ -x $top/.venv/bin/python ]] || { echo "install_time.sh: no .venv: run tools/run setup first" >&2; exit 2; }
times=()
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%s cores, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  rm -rf "$top/build-install" "$prefix"/*
  start=$(date +%s.%N)
  "$top/tools/run" install "$prefix" >/dev/null
  end=$(date +%s.%N)
  [[ -x $prefix/bin/tileperf ]] || { echo "install_time.sh: no $prefix/bin/tileperf" >&2; exit 1; }
  t=$(echo "$end - $start" | bc)
  times+=("$t")
  printf 'run %d: %.1f s\n' "$i" "$t"
done
printf 'median of %d: %.1f s\n' "$runs" "$(median "${times[@]}")"
