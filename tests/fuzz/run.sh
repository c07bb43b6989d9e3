#!/bin/sh
# Builds the fuzz targets with clang, libFuzzer, ASan and UBSan into
# build-fuzz/ and runs one target.
#
#   tests/fuzz/run.sh <target> [seconds]     # default 600
#   tests/fuzz/run.sh --build                # only build every target
#
# Targets: elf line_table sass loops resusage remarks tileir skeleton schedule
# metrics policy result problem dump_record launch timeline, and workloads (the Python
# reader of a kernel inventory, fuzzed with atheris, pinned, in a virtual
# environment of its own: build-fuzz/atheris). Installs what it needs and
# lacks with apt-get (clang and libFuzzer: clang libclang-rt-14-dev on
# Debian 12) and pip (atheris). The working corpus grows in
# build-fuzz/fuzz-corpus/<target>/, seeded from the fixtures; each input that
# crashes, hangs (over 10 s) or leaks is written to build-fuzz/fuzz-findings/
# and belongs, once fixed, in tests/fuzz/corpus/<target>/, whose files the
# normal test suite replays (fuzz.replay.<target>).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build="$top/build-fuzz"
if [ "${1:-}" = "workloads" ]; then
  seconds=${2:-600}
  venv="$build/atheris"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -c "import atheris" 2>/dev/null || "$venv/bin/pip" install -q atheris==2.3.0
  corpus="$build/fuzz-corpus/workloads"
  findings="$build/fuzz-findings/workloads"
  mkdir -p "$corpus" "$findings"
  cd "$findings"
  exec "$venv/bin/python" "$top/tests/fuzz/workloads_fuzz.py" "$corpus" "$top/tests/fuzz/corpus/workloads" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
    -artifact_prefix="$findings/"
fi
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y clang libclang-rt-14-dev >/dev/null
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$top" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTILEPERF_FUZZ=ON >/dev/null
fi
targets="elf line_table sass loops resusage remarks tileir skeleton schedule metrics policy result problem dump_record launch timeline"
if [ "${1:-}" = "--build" ]; then
  for t in $targets; do cmake --build "$build" -j "$(nproc)" --target "fuzz_$t"; done
  exit 0
fi
target=${1:?usage: tests/fuzz/run.sh <target> [seconds] | --build}
seconds=${2:-600}
# Targets run side by side share the build: one builds at a time.
flock "$build/.build.lock" cmake --build "$build" -j "$(nproc)" --target "fuzz_$target" >/dev/null
corpus="$build/fuzz-corpus/$target"
findings="$build/fuzz-findings/$target"
mkdir -p "$corpus" "$findings"
seeds="$build/tests/fuzz/seeds/$target"
committed="$top/tests/fuzz/corpus/$target"
[ -d "$committed" ] || committed=""
cd "$findings"
exec "$build/tests/fuzz/fuzz_$target" "$corpus" "$seeds" $committed \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
  -print_final_stats=1 -artifact_prefix="$findings/"
