#!/bin/sh
# Interrupts `tileperf check` while the (fake) tileiras hangs, and checks that
# tileperf ends by SIGINT (exit 130) and leaves no process of the tool behind.
#   interrupt.sh <tileperf> <fake tools folder> <bytecode> <work folder>
tileperf=$1 tools=$2 bytecode=$3 work=$4
FAKE_TILEIRAS_MODE=hang "$tileperf" check --kernel gelu --config f16_1024 --arch sm_100 \
  --bytecode "$bytecode" --work-dir "$work" --baseline "$work/none.json" \
  --tileiras "$tools/tileiras" --cuobjdump "$tools/cuobjdump" --timeout 30 &
pid=$!
tool=""
for _ in $(seq 100); do  # the tool's process: the child running the hanging compile
  for child in $(pgrep -P "$pid"); do
    grep -q "f16_1024.tileirbc" "/proc/$child/cmdline" 2>/dev/null && tool=$child
  done
  [ -n "$tool" ] && break
  sleep 0.1
done
[ -n "$tool" ] || { echo "the fake tileiras never started"; kill "$pid"; exit 1; }
sleep 0.5  # let it start its own child
kill -INT "$pid"
wait "$pid"
status=$?
sleep 0.2
if kill -0 -- "-$tool" 2>/dev/null; then
  echo "processes of the tool's group $tool are still running:"; ps -o pid,pgid,args -g "$tool"
  exit 1
fi
[ "$status" -eq 130 ] || { echo "tileperf exited $status, expected 130 (SIGINT)"; exit 1; }
echo "ok: tileperf ended by SIGINT, no process of the tool left"
