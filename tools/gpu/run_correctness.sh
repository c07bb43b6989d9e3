#!/usr/bin/env bash
# Runs kernels/test_correctness.py on a CUDA machine that has PyTorch and
# cuTile but no tileiras: tools/gpu/tileiras_stub.py stands in for the
# compiler, serving cubins compiled elsewhere by the real tileiras and
# recording the bytecode of any it lacks (then: tools/gpu/precompile.sh here,
# and run again).
#   tools/gpu/run_correctness.sh <store-dir> <record-dir> [pytest arguments]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
store=$(cd "$1" && pwd) record=$2
shift 2
stub_bin=$(mktemp -d)
printf '#!/bin/sh\nexec %s %s "$@"\n' "$(command -v python3)" "$top/tools/gpu/tileiras_stub.py" \
  > "$stub_bin/tileiras"
chmod +x "$stub_bin/tileiras"
export PATH=$stub_bin:$PATH TILEPERF_STUB_STORE=$store TILEPERF_STUB_RECORD=$record
export PYTHONPATH=$top/tools${PYTHONPATH:+:$PYTHONPATH}
python3 -m pytest -p no:cacheprovider -rs "$top/kernels/test_correctness.py" "$@"
