#!/usr/bin/env bash
# tileperf check where the file system refuses: a read-only work folder, a
# full disk, a folder it may not write. Each ends as an I/O failure (exit 10)
# with the message naming the file and the reason, and leaves nothing half
# written. The read-only and full file systems are mounted in a mount
# namespace of this test's own (unshare -m); the permission case runs the
# check without capabilities (setpriv --bounding-set=-all), so that the
# folder's mode denies the write while the checkout, wherever it is and
# whatever its mode, stays readable to its owner. Exit 77 (skipped) where
# those are not allowed.
#
# Environment: TILEPERF, TILEIRAS, CUOBJDUMP, BYTECODE, CHECKS, WORK.
set -euo pipefail
: "${TILEPERF:?}" "${TILEIRAS:?}" "${CUOBJDUMP:?}" "${BYTECODE:?}" "${CHECKS:?}" "${WORK:?}"
rm -rf "$WORK"
mkdir -p "$WORK"
unshare -m true 2>/dev/null && setpriv --bounding-set=-all true 2>/dev/null ||
  { echo "io_failure.sh: unshare -m or setpriv not allowed here: skipped"; exit 77; }
fail() { echo "io_failure.sh: $*" >&2; exit 1; }

check_in() {  # <work folder>: the check's command line
  printf '%q ' "$TILEPERF" check --kernel gelu --config f16_1024 --arch sm_120 --bytecode "$BYTECODE" \
    --work-dir "$1" --baseline "$WORK/none.json" --checks "$CHECKS" --tileiras "$TILEIRAS" \
    --cuobjdump "$CUOBJDUMP" --cache-dir off
}

expect() {  # <case> <expected stderr line> <command...>
  local name=$1 line=$2 code=0
  shift 2
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || code=$?
  [[ $code == 10 ]] || fail "$name: exit $code, expected 10: $(cat "$WORK/$name.out" "$WORK/$name.err")"
  grep -qxF "$line" "$WORK/$name.err" || fail "$name: expected '$line', got: $(cat "$WORK/$name.err")"
  find "$WORK" -name '*.tmp.*' | grep -q . && fail "$name: a temporary file was left: $(find "$WORK" -name '*.tmp.*')"
  return 0
}

mkdir -p "$WORK/ro"
expect read_only "tileperf: error: $WORK/ro/gelu: cannot write: Read-only file system" \
  unshare -m sh -c "mount --bind '$WORK/ro' '$WORK/ro' && mount -o remount,bind,ro '$WORK/ro' && $(check_in "$WORK/ro/gelu")"

mkdir -p "$WORK/full"
expect disk_full "tileperf: error: $WORK/full/gelu/f16_1024.sm_120.cubin: cannot write: No space left on device" \
  unshare -m sh -c "mount -t tmpfs -o size=256k tmpfs '$WORK/full' && mkdir '$WORK/full/gelu' &&
    (dd if=/dev/zero of='$WORK/full/filler' bs=4k 2>/dev/null || true) && $(check_in "$WORK/full/gelu")"

mkdir -p "$WORK/locked"
chmod 555 "$WORK/locked"
expect permission "tileperf: error: $WORK/locked/gelu: cannot write: Permission denied" \
  setpriv --bounding-set=-all sh -c "$(check_in "$WORK/locked/gelu")"
echo "io_failure.sh: read-only folder, full disk and permission denied: I/O failure, exit 10"
