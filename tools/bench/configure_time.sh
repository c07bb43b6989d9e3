#!/usr/bin/env bash
# Wall time of a fresh configure (`cmake --fresh -S SRC -B <empty folder>`) of
# two source trees side by side (default: main's checkout and this one),
# RUNS times each, interleaved. Prints each run, each tree's median and the
# ratio after/before, and the machine's cores and load when it started.
#   tools/bench/configure_time.sh [RUNS] [BEFORE_SRC] [AFTER_SRC]   (default 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
before=${2:-/work/main}
after=${3:-$top}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
once() {  # once SRC: seconds of one fresh configure of SRC
  rm -rf "$scratch/b"
  local start end
  start=$(date +%s.%N)
  cmake --fresh -S "$1" -B "$scratch/b" >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
printf '%s cores, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
b=(); a=()
for i in $(seq "$runs"); do
  b+=("$(once "$before")"); a+=("$(once "$after")")
  printf 'run %d: before %.2f s, after %.2f s\n' "$i" "${b[-1]}" "${a[-1]}"
done
mb=$(median "${b[@]}"); ma=$(median "${a[@]}")
printf 'median of %d: before %.2f s, after %.2f s, ratio %.3f\n' "$runs" "$mb" "$ma" "$(echo "$ma / $mb" | bc -l)"
