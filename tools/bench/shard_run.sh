#!/usr/bin/env bash
# A team's cache across CI shards, measured here: nginx with its WebDAV
# module on loopback (the recipe of docs/guide/cache.md, without tokens) stands for the
# team's server, local shards for the runners.
#   main    a cold gate on an empty server, writing back (TILEPERF_CACHE_WRITE=1)
#   mr      KERNEL edited (a line inserted above its code, so that each of its
#           configurations compiles anew), then SHARDS shards one after the
#           other, each as a fresh runner: an empty local cache, no output of an
#           earlier run, reading only, `ctest -L perf -I k,,SHARDS`
# Prints each phase's wall time and how many configurations were compiled
# (by the compile batch or by a check alone) against how many the edit
# changed, on a clone of the committed project in a scratch folder.
#
#   tools/bench/shard_run.sh [-s SHARDS] [-j JOBS] [-k KERNEL] [-d DIR]
#     -s  shards (4)      -j  ctest jobs (nproc)      -k  the kernel edited (softmax)
#     -d  scratch folder, kept and reused when given (default: a new one, removed)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
shards=4 jobs=$(nproc) kernel=softmax dir="" keep=0
while getopts s:j:k:d: opt; do
  case $opt in
    s) shards=$OPTARG ;; j) jobs=$OPTARG ;; k) kernel=$OPTARG ;; d) dir=$OPTARG keep=1 ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
done
python=$top/.venv/bin/python
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $python ]] || { echo "shard_run.sh: error: $python missing: run tools/run setup" >&2; exit 2; }
[[ -x $nginx ]] || { echo "shard_run.sh: error: nginx missing (Debian: nginx)" >&2; exit 2; }
if [[ -z $dir ]]; then dir=$(mktemp -d /tmp/tileperf-shards.XXXXXX); fi
src=$dir/src build=$dir/build server=$dir/server
unset TILEPERF_UPDATE_BASELINES CI TILEPERF_CACHE_TOKEN TILEPERF_CACHE_WRITE TILEPERF_CACHE_URL
say() { printf 'shard_run: %s\n' "$*" >&2; }
now() { date +%s.%N; }

[[ -d $src ]] || git clone -q "$top" "$src"
if [[ ! -x $build/tools/tileperf ]]; then
  say "configuring and building tileperf in $build (not timed)"
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTILEPERF_BUILD_TESTS=OFF \
    "-DTILEPERF_PYTHON=$python" >/dev/null
  cmake --build "$build" -j "$jobs" --target tileperf >/dev/null
fi
git -C "$src" checkout -q -- kernels

# The server: nginx, single process, on a free loopback port.
port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -rf "$server" && mkdir -p "$server/store"
cat >"$server/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $server/nginx.pid; error_log $server/error.log;
events { worker_connections 64; }
http {
  access_log $server/access.log;
  client_body_temp_path $server/body; proxy_temp_path $server/proxy; fastcgi_temp_path $server/fastcgi;
  uwsgi_temp_path $server/uwsgi; scgi_temp_path $server/scgi;
  client_max_body_size 64m;
  server { listen 127.0.0.1:$port; root $server/store;
           location / { dav_methods PUT; create_full_put_path on; } }
}
CONF
"$nginx" -p "$server" -c "$server/nginx.conf" & nginx_pid=$!
cleanup() { kill "$nginx_pid" 2>/dev/null || true; [[ $keep == 1 ]] || rm -rf "$dir"; }
trap cleanup EXIT
export TILEPERF_CACHE_URL=http://127.0.0.1:$port/tileperf

fresh_runner() {  # an empty local cache and none of an earlier run's outputs
  rm -rf "$dir/cache"
  find "$build/tileperf" -mindepth 2 -type f ! -name configs.json -delete
}
# compiled <log>: configurations the compile batch compiled plus checks that compiled alone.
compiled() {
  local batch alone
  batch=$(sed -n 's/.*batch: .* in the cache, \([0-9]*\) compiled.*/\1/p' "$1" | paste -sd+ | bc)
  alone=$(grep -cE '^[0-9]+: perf\.[^ ]+: .*\((dump [0-9.]+s, )?compile ' "$1" || true)
  echo $(( ${batch:-0} + alone ))
}
gate() {  # <log> [ctest args...]: wall time on stdout
  local log=$1 start end
  shift
  start=$(now)
  TILEPERF_CACHE_DIR=$dir/cache ctest --test-dir "$build" -L perf -j "$jobs" -V "$@" >"$log" 2>&1 || true
  end=$(now)
  echo "$end - $start" | bc
}

fresh_runner
main=$(TILEPERF_CACHE_WRITE=1 gate "$dir/main.log")
entries=$(find "$server/store/tileperf/ac" -type f | wc -l)
configs=$(find "$build/tileperf/$kernel" -name '*.cubin' | wc -l)
printf 'main: cold gate %.1f s, %d configurations compiled, %d entries on the server\n' "$main" \
  "$(compiled "$dir/main.log")" "$entries"

sed -i '0,/^import /s//#\nimport /' "$src/kernels/$kernel.py"
total=0 wall=0
for k in $(seq "$shards"); do
  fresh_runner
  t=$(gate "$dir/shard-$k.log" -I "$k,,$shards")
  c=$(compiled "$dir/shard-$k.log")
  hits=$(grep -cE '^[0-9]+: perf\.[^ ]+: .*\(cached' "$dir/shard-$k.log" || true)
  printf 'shard %d/%d: %.1f s, %d compiled, %d served by the cache\n' "$k" "$shards" "$t" "$c" "$hits"
  total=$((total + c)) wall=$(echo "$wall + $t" | bc)
done
git -C "$src" checkout -q -- kernels
printf 'merge request: %d configurations compiled over %d shards (%s changed by the edit of %s), %.1f s of shard time\n' \
  "$total" "$shards" "$configs" "$kernel" "$wall"
printf 'load %s on %d cores\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
