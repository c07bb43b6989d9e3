#!/usr/bin/env bash
# Wall time of the README's first command, `tools/run check`, measured cold
# (no .venv and no build/: virtual environment, pip downloads without a pip
# cache, configure, build, gate) and warm (everything set up, the gate alone),
# RUNS times each, alternating. Prints each run and the medians.
#   tools/bench/first_command.sh [RUNS]   (default 3)
# Debian packages are not removed: their install time is not part of "cold".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
cold=() warm=()

time_run() {
  local start end
  start=$(date +%s.%N)
  "$top/tools/run" check >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for i in $(seq "$runs"); do
  rm -rf "$top/.venv" "$top/build"
  c=$(PIP_NO_CACHE_DIR=1 time_run)
  w=$(time_run)
  cold+=("$c") warm+=("$w")
  printf 'run %d: cold %.1f s, warm %.1f s\n' "$i" "$c" "$w"
done
mc=$(median "${cold[@]}") mw=$(median "${warm[@]}")
printf 'median of %d: cold %.1f s, warm %.1f s, cold/warm %.1fx\n' "$runs" "$mc" "$mw" \
  "$(echo "$mc / $mw" | bc -l)"
