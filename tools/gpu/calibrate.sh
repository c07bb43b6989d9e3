#!/usr/bin/env bash
# Runs the launch model's microbenchmarks on a CUDA GPU (the lent H200):
# tools/gpu/calibrate.cu (bandwidths, latencies, launch and block costs, the
# load/store unit's rate), built with the machine's nvcc, and
# tools/gpu/calibrate_mma.py (tensor-core rate and MMA chains, through
# PyTorch and Triton). Writes OUT_DIR/calibration.json, the two results and
# the GPU's state before and after, and the MMA chains' cubins
# (OUT_DIR/wgmma_*.cubin, for tools/bench/mma_latency.py).
#   tools/gpu/calibrate.sh OUT_DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tools/gpu/calibrate.sh OUT_DIR}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,pstate --format=csv,noheader 2>&1 || true; }
before=$(smi)
nvcc -O3 -arch=sm_90 -cudart static -o "$work/calibrate" "$top/tools/gpu/calibrate.cu"
"$work/calibrate" > "$work/micro.json"
PYTHONUNBUFFERED=1 python3 "$top/tools/gpu/calibrate_mma.py" --cubins "$out" > "$work/mma.json"
after=$(smi)
python3 - "$work/micro.json" "$work/mma.json" "$out/calibration.json" "$before" "$after" "$(nvcc --version | tail -1)" <<'PY'
import json, sys, datetime
micro, mma, out, before, after, nvcc = sys.argv[1:]
doc = json.load(open(micro))
m = json.load(open(mma))
doc["measurements"].update(m["measurements"])
doc.update({"created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": "tools/gpu/calibrate.sh", "nvcc": nvcc, "torch": m["torch"],
            "triton": m["triton"], "nvidia_smi_before": before, "nvidia_smi_after": after})
open(out, "w").write(json.dumps(doc, indent=1, sort_keys=True) + "\n")
PY
echo "calibration: $out/calibration.json"
