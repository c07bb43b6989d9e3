# Sourced by the library examples' drivers (flashinfer.sh, tilegym.sh): a library's package as a developer
# edits it, searched first, with nothing copied but the one module edited.

# link_all_but <folder> <into> <name>: links to every entry of <folder> but <name>.
link_all_but() {
  mkdir -p "$2"
  local entry
  for entry in "$1"/*; do
    [[ $(basename "$entry") == "$3" ]] || ln -s "$entry" "$2/"
  done
}

# edited_copy <installed package folder> <tree> <module path in it> <old> <new>:
# <tree> links to every file of the package but <module path>, which is a copy
# with the text <old> (which must be there) replaced by <new>.
edited_copy() {
  local src=$1 dst=$2 part parts
  rm -rf "$dst"
  IFS=/ read -ra parts <<< "$3"
  for part in "${parts[@]}"; do
    link_all_but "$src" "$dst" "$part"
    src=$src/$part dst=$dst/$part
  done
  OLD=$4 NEW=$5 "$TILEPERF_PYTHON" -c 'import os, sys
text = open(sys.argv[1]).read()
if os.environ["OLD"] not in text:
    sys.exit(f"{sys.argv[1]}: the text to edit is not there: {os.environ[chr(79) + chr(76) + chr(68)]}")
open(sys.argv[2], "w").write(text.replace(os.environ["OLD"], os.environ["NEW"]))' "$src" "$dst"
}

# installed_package <name>: the folder of the installed package.
installed_package() {
  "$TILEPERF_PYTHON" -c 'import importlib.util as u, sys; print(u.find_spec(sys.argv[1]).submodule_search_locations[0])' "$1"
}

# What both drivers do, with $example, $build, $WORK and $TILEPERF_* set and
# fail/quiet defined by the driver.

# install_example: tileperf installed into $WORK/prefix and the example
# configured against it in $build; sets perf to the perf tests registered.
install_example() {
  rm -rf "$WORK"
  mkdir -p "$WORK"
  "$TILEPERF_PYTHON" "$TILEPERF_SOURCE/tools/tileperf_dump/requirements.py" "$example/requirements.txt" ||
    fail "the example's requirements are not installed (tools/run setup installs them)"
  quiet cmake --install "$TILEPERF_BUILD" --prefix "$WORK/prefix"
  quiet cmake -S "$example" -B "$build" -DCMAKE_PREFIX_PATH="$WORK/prefix" -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
  perf=$(ctest --test-dir "$build" -N -L perf | grep -c 'perf\.')
}

# varying_tests: a ctest regex of the example's configurations whose
# compilation varies (their baselines record variants), or one that matches
# none: the gate step runs them on every merge request, whatever else it picks.
varying_tests() {
  local file name names=()
  while IFS= read -r file; do
    file=${file#"$example/baselines/"}
    name="perf.${file%%/*}.${file#*/}"
    names+=("${name//./\\.}")
  done < <(grep -l '"variants"' "$example"/baselines/*/*.json 2>/dev/null | grep -v '\.detail\.json$' | sed 's/\.json$//')
  if [[ ${#names[@]} -eq 0 ]]; then echo '^$'; else (IFS='|'; echo "^(${names[*]})$"); fi
}

# run_gate [ctest options]: the example's perf tests pass against its baselines.
run_gate() {
  if ! ctest --test-dir "$build" -L perf "$@" -j2 >"$WORK/last.log" 2>&1; then
    "$WORK/prefix/bin/tileperf" summary "$build/tileperf" | grep -v '^perf.* pass ' || true
    fail "the gate did not pass against the committed baselines"
  fi
}

# edited_build <package> <-D option naming its folder> <module path> <old> <new> <kernel>:
# $WORK/build-edited, the example configured afresh against the package with
# that module edited, registering the configuration file <kernel> alone.
edited_build() {
  edited_copy "$(installed_package "$1")" "$WORK/edited/$1" "$3" "$4" "$5" || fail "the edit's line was not found"
  rm -rf "$WORK/build-edited"
  local kernels
  kernels=$(echo "$1" | tr '[:lower:]' '[:upper:]')_KERNELS
  quiet cmake -S "$example" -B "$WORK/build-edited" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
    -DTILEPERF_PYTHON="$TILEPERF_PYTHON" "$2=$WORK/edited" "-D$kernels=$6"
}

# judged <package> <-D option> <module path> <old> <new> <kernel/config.arch> <regex>:
# the edited library's test of that configuration ends in a "state: message"
# that matches the regex.
judged() {
  edited_build "$1" "$2" "$3" "$4" "$5" "${6%%/*}"
  local got
  ctest --test-dir "$WORK/build-edited" -R "^perf\.${6//\//\\.}$" >"$WORK/last.log" 2>&1 || true
  got=$("$TILEPERF_PYTHON" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["state"] + ": " + r["message"])' \
    "$WORK/build-edited/tileperf/$6.result.json")
  [[ $got =~ $7 ]] || fail "edit '$5': expected /$7/, got: $got"
  echo "edit '$5' on $6: $got" | cut -c1-240
}
