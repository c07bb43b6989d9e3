#!/usr/bin/env bash
# Prepares, on this CPU machine, the GPU timing of `tileperf investigate`'s
# variants of shipped configurations: for each configuration named (default:
# 24 with non-trivial suggestions or isolation shares on sm_90; 'all' for
# every one), one row per variant, base = the gate's cubin with the
# configuration's launch, edit = the variant's cubin with the launch the
# variant stands for (its hints; a tuning variant's configuration rebuilt by
# its builder), into one folder to carry to the GPU machine (default
# .timing-investigate/, ignored by git), and every row's estimate into
# tools/bench/investigations.<arch>.predictions.json, before any timing.
# Needs the build's investigation records (tools/bench/investigate_shipped.py
# or `tileperf investigate`; a missing or stale one is made again). Then, there:
#   python3 tools/gpu/time_edits.py .timing-investigate OUT/investigate_timing.json
# and here: python3 tools/bench/score_investigations.py OUT/investigate_timing.json
#   tools/gpu/prepare_investigations.sh [-o DIR] [--build DIR] [--arch sm_90] [KERNEL.CONFIG... | all]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
python=${TILEPERF_PYTHON:-$top/.venv/bin/python}
exec env -u CUDA_HOME -u CUDA_PATH PYTHONPATH="$top/tools${PYTHONPATH:+:$PYTHONPATH}" \
  "$python" "$top/tools/gpu/prepare_investigations.py" "$@"
