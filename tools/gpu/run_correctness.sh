#!/usr/bin/env bash
# Runs kernels/test_correctness.py on a CUDA machine that has PyTorch and
# cuTile but no tileiras, with the very cubins the gate measured: the store
# that `tools/gpu/prepare_timing.sh --configs` made where the gate runs
# (default .gate-cubins/). Exits 77 when every case was skipped.
#   tools/gpu/run_correctness.sh [store-dir] [pytest arguments]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
store=${1:-$top/.gate-cubins}
[[ $# -gt 0 ]] && shift
export TILEPERF_GATE_STORE=$(cd "$store" && pwd)
export PYTHONPATH=$top/tools${PYTHONPATH:+:$PYTHONPATH}
python3 -m pytest -p no:cacheprovider -rs --rootdir "$top/kernels" "$top/kernels/test_correctness.py" "$@"
