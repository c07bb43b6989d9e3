#!/usr/bin/env bash
# Prepares, on this CPU machine, the GPU timing of the edit corpus: for every
# patch of tests/mutants and tests/noop (or the patches named), and each
# configuration of its `config:` line, the base and the edited configuration's
# bytecode and cubin (the gate's own from build/ when they are current, else
# exported and compiled here with the gate's tileiras flags), the kernel
# sources and a manifest, into one folder to carry to the GPU machine
# (default .timing/, ignored by git). Then, there:
#   python3 tools/gpu/time_edits.py .timing $OUT/edit_timing.json
#   tools/gpu/prepare_timing.sh [-o DIR] [--build DIR] [--arch sm_90] [PATCH... | --set NAME]
# --set NAME takes the patches whose header says 'set: NAME' (the unfitted
# validation edits: --set unfitted -o .timing-unfitted).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
python=${TILEPERF_PYTHON:-$top/.venv/bin/python}
exec env -u CUDA_HOME -u CUDA_PATH PYTHONPATH="$top/tools${PYTHONPATH:+:$PYTHONPATH}" \
  "$python" "$top/tools/gpu/prepare_timing.py" "$@"
