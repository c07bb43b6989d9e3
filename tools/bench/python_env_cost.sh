#!/usr/bin/env bash
# What the Python environment of tools/run costs to create on a fresh machine,
# for each revision given (its tools/requirements.txt and examples'
# requirements files, as tools/run installs them: pip install --no-deps -r,
# nothing from pip's cache, so every wheel is downloaded), side by side: the
# wall time of creating it, its size on disk, and how long importing what the
# dump step imports first takes in it (pytest and cuTile's compiler; the
# median of 3). Prints one row per revision.
#
#   tools/bench/python_env_cost.sh REV...      (e.g. HEAD~5 HEAD)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -ge 1 ]] || { sed -n '2,10p' "$0" >&2; exit 2; }
work=$(mktemp -d /tmp/tileperf-envcost.XXXXXX)
trap 'rm -rf "$work"' EXIT
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%s cores, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| revision | create | size | first import |\n| --- | ---: | ---: | ---: |\n'
for rev in "$@"; do
  dir=$work/$(git -C "$top" rev-parse --short "$rev")
  mkdir -p "$dir"
  files=()
  for f in $(git -C "$top" ls-tree -r --name-only "$rev" -- tools/requirements.txt examples | grep 'requirements.txt$'); do
    git -C "$top" show "$rev:$f" > "$dir/$(echo "$f" | tr / _)"
    files+=("$dir/$(echo "$f" | tr / _)")
  done
  start=$(date +%s.%N)
  python3 -m venv "$dir/venv"
  for f in "${files[@]}"; do
    "$dir/venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir --no-deps -r "$f"
  done
  end=$(date +%s.%N)
  size=$(du -sm "$dir/venv" | cut -f1)
  imports=()
  for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$dir/venv/bin/python" -c "import pytest, cuda.tile._compile"
    imports+=("$(echo "$(date +%s.%N) - $s" | bc)")
  done
  printf '| %s | %.0f s | %d MiB | %.2f s |\n' "$(git -C "$top" rev-parse --short "$rev")" \
    "$(echo "$end - $start" | bc)" "$size" "$(median "${imports[@]}")"
  rm -rf "$dir/venv"
done
