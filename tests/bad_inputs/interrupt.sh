#!/bin/sh
# Signals `tileperf check` while the (fake) tileiras hangs, and checks that
# tileperf ends by that signal and that no process of the tool's group is
# left running: SIGINT is passed on to the tool; after SIGKILL, the kernel
# tells the group's leader, which kills the group.
#   interrupt.sh <tileperf> <fake tools folder> <bytecode> <work folder> INT|KILL
tileperf=$1 tools=$2 bytecode=$3 work=$4 signal=$5
FAKE_TILEIRAS_MODE=hang TILEPERF_COMPILER_ENV=FAKE_TILEIRAS_MODE "$tileperf" check --kernel gelu --config f16_1024 --arch sm_100 \
  --bytecode "$bytecode" --work-dir "$work" --baseline "$work/none.json" \
  --tileiras "$tools/tileiras" --cuobjdump "$tools/cuobjdump" --timeout 30 &
pid=$!
group=""
for _ in $(seq 100); do  # the group of the hanging compile: its leader is tileperf's child
  for leader in $(pgrep -P "$pid"); do
    for tool in $(pgrep -P "$leader"); do
      grep -q "remarks-output-file" "/proc/$tool/cmdline" 2>/dev/null && group=$leader
    done
  done
  [ -n "$group" ] && break
  sleep 0.1
done
[ -n "$group" ] || { echo "the fake tileiras never started"; kill "$pid"; exit 1; }
sleep 0.5  # let it start its own child
kill "-$signal" "$pid"
wait "$pid"
status=$?
sleep 0.5
left=$(ps -eo pgid=,stat=,pid=,args= | awk -v g="$group" '$1 == g && $2 !~ /^Z/')
if [ -n "$left" ]; then
  echo "processes of the tool's group $group are still running:"; echo "$left"
  exit 1
fi
case "$signal" in INT) expected=130 ;; KILL) expected=137 ;; esac
[ "$status" -eq "$expected" ] || { echo "tileperf exited $status, expected $expected (SIG$signal)"; exit 1; }
echo "ok: tileperf ended by SIG$signal, no process of the tool left running"
