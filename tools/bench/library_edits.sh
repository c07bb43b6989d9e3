#!/usr/bin/env bash
# The launch model's estimates of the library edits of
# tools/bench/unfitted_library_edits.json (FlashInfer's and TileGym's own
# modules edited as tests/examples/edits.sh edits them), made by the current
# tileperf before any timing: for each edit, the example (examples/<library>)
# configured against the installed package and, once more, against a copy of
# the package with that module edited (its configuration file alone), the one
# configuration checked on its architecture. Writes OUT (default
# tools/bench/unfitted_library.predictions.json, rows "<edit>.<config>" with
# cost.time_ns of "base" and "edit", as tools/bench/predict_rows.py writes),
# and copies each side's cubin, bytecode and dump record into
# .timing-library/<edit>/{base,edit}/ for a GPU run.
#   tools/bench/library_edits.sh [--build build] [--out FILE] [EDIT...]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
TILEPERF_BUILD=$top/build
out=$top/tools/bench/unfitted_library.predictions.json
only=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) TILEPERF_BUILD=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) only+=("$1"); shift ;;
  esac
done
export TILEPERF_BUILD TILEPERF_SOURCE=$top
TILEPERF_PYTHON=${TILEPERF_PYTHON:-$(sed -n 's/^TILEPERF_PYTHON:[A-Z]*=//p' "$TILEPERF_BUILD/CMakeCache.txt")}
export TILEPERF_PYTHON
WORK=${WORK:-$top/.timing-library/work}
carry=$top/.timing-library
edits=$top/tools/bench/unfitted_library_edits.json
source "$top/tests/examples/edits.sh"
fail() { echo "library_edits.sh: $*" >&2; exit 1; }
quiet() { "$@" >"$WORK/last.log" 2>&1 || { cat "$WORK/last.log"; return 1; }; }
field() { "$TILEPERF_PYTHON" -c 'import json, sys
e = next(e for e in json.load(open(sys.argv[1]))["edits"] if e["name"] == sys.argv[2])
print(e[sys.argv[3]], end="")' "$edits" "$1" "$2"; }

# keep <build> <kernel/config.arch> <folder>: the checked configuration's files, for the GPU run.
keep() {
  local dir=$1/tileperf/${2%%/*} name=${2#*/} config
  config=${name%.*}
  mkdir -p "$3"
  cp "$dir/$name.cubin" "$dir/$name.metrics.json" "$3/"
  cp "$dir/$config".tileirbc* "$3/" 2>/dev/null || true
}

# kernels_of <library>: the configuration files its edits judge, as a CMake list.
kernels_of() { "$TILEPERF_PYTHON" -c 'import json, sys
edits = json.load(open(sys.argv[1]))["edits"]
print(";".join(sorted({e["kernel"] for e in edits if e["library"] == sys.argv[2]})), end="")' "$edits" "$1"; }

names=$("$TILEPERF_PYTHON" -c 'import json, sys; print(" ".join(e["name"] for e in json.load(open(sys.argv[1]))["edits"]))' "$edits")
[[ ${#only[@]} -gt 0 ]] && names="${only[*]}"
rm -rf "$carry"
mkdir -p "$carry" "$WORK"
quiet cmake --install "$TILEPERF_BUILD" --prefix "$WORK/prefix"
rows=$carry/rows.tsv
: >"$rows"
declare -A based=()
for name in $names; do
  library=$(field "$name" library) kernel=$(field "$name" kernel)
  test_id="$kernel/$(field "$name" config).$(field "$name" arch)"
  example=$top/examples/$library
  build=$WORK/build-$library
  option=-D$(echo "$library" | tr '[:lower:]' '[:upper:]')_PATH
  if [[ -z ${based[$library/$test_id]:-} ]]; then
    if [[ -z ${based[$library]:-} ]]; then
      quiet cmake -S "$example" -B "$build" -DCMAKE_PREFIX_PATH="$WORK/prefix" -DTILEPERF_PYTHON="$TILEPERF_PYTHON" \
        "-D$(echo "$library" | tr '[:lower:]' '[:upper:]')_KERNELS=$(kernels_of "$library")"
      based[$library]=1
    fi
    ctest --test-dir "$build" -R "^perf\.${test_id//\//\\.}$" >"$WORK/last.log" 2>&1 || true
    [[ -f $build/tileperf/$test_id.metrics.json ]] || { cat "$WORK/last.log"; fail "$test_id: no metrics (base)"; }
    based[$library/$test_id]=1
  fi
  keep "$build" "$test_id" "$carry/$name/base"
  OLD=$(field "$name" old) NEW=$(field "$name" new)
  edited_build "$library" "$option" "$(field "$name" module)" "$OLD" "$NEW" "$kernel"
  ctest --test-dir "$WORK/build-edited" -R "^perf\.${test_id//\//\\.}$" >"$WORK/last.log" 2>&1 || true
  [[ -f $WORK/build-edited/tileperf/$test_id.metrics.json ]] || { cat "$WORK/last.log"; fail "$name: no metrics (edit)"; }
  keep "$WORK/build-edited" "$test_id" "$carry/$name/edit"
  cp "$WORK/build-edited/tileperf/$test_id.result.json" "$carry/$name/edit/result.json"
  printf '%s\t%s\n' "$name" "$test_id" >>"$rows"
  echo "$name: $("$TILEPERF_PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["state"] + ": " + r["message"])' "$carry/$name/edit/result.json" | cut -c1-200)"
done
"$TILEPERF_PYTHON" - "$rows" "$carry" "$out" "$TILEPERF_BUILD/tools/tileperf" "$edits" <<'PY'
import json, subprocess, sys
from pathlib import Path
rows, carry, out, tileperf, edits = sys.argv[1:]
version = subprocess.run([tileperf, "--version"], capture_output=True, text=True).stdout.strip()
doc = {"format": "tileperf-row-predictions/1", "tileperf": version,
       "timing": "tools/bench/unfitted_library_edits.json (tools/bench/library_edits.sh)", "rows": {}}
for line in Path(rows).read_text().splitlines():
    name, test_id = line.split("\t")
    config = test_id.split("/", 1)[1].rsplit(".", 1)[0]
    sides = {}
    for side in ("base", "edit"):
        metrics = next((Path(carry) / name / side).glob("*.metrics.json"))
        sides[side] = json.loads(metrics.read_text())["metrics"]["cost.time_ns"]
    doc["rows"][f"{name}.{config}"] = sides
Path(out).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
print(f"{len(doc['rows'])} rows -> {out}")
PY
