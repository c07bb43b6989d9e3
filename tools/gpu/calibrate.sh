#!/usr/bin/env bash
# Runs the launch model's microbenchmarks on a CUDA GPU (an H200 or an H100):
# tools/gpu/calibrate.cu (bandwidths, latencies, launch and block costs, the
# load/store unit's rate), tools/gpu/calibrate_cluster.cu (two-CTA clusters:
# multicast bulk copies against each SM's receive rate, cluster dispatch;
# load pipelines of 1 to 8 stages, what a load's latency hint moves), both
# built with the machine's nvcc, and tools/gpu/calibrate_mma.py (tensor-core
# rate and MMA chains, through PyTorch and Triton). Writes
# OUT_DIR/calibration.json, the results and the GPU's state before and after,
# and the MMA chains' cubins (OUT_DIR/wgmma_*.cubin, for
# tools/bench/mma_latency.py).
#
# Each card is a row of its own: calibration.json says which card it
# measured ("card": h200, h100, or the device's name) and the file it belongs
# in (tools/bench/<card>_calibration.json). An H100's figures never replace
# the H200's, which the sm_90 row of the model is checked against.
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
# sm_90a: the multicast bulk copies are optimised for it (and tileiras's sm_90 cubins use it).
nvcc -O3 -gencode arch=compute_90a,code=sm_90a -cudart static -o "$work/calibrate_cluster" \
  "$top/tools/gpu/calibrate_cluster.cu"
"$work/calibrate" > "$work/micro.json"
"$work/calibrate_cluster" > "$work/cluster.json"
PYTHONUNBUFFERED=1 python3 "$top/tools/gpu/calibrate_mma.py" --cubins "$out" > "$work/mma.json"
after=$(smi)
python3 - "$work/micro.json" "$work/cluster.json" "$work/mma.json" "$out/calibration.json" "$before" "$after" \
  "$(nvcc --version | tail -1)" <<'PY'
import json, re, sys, datetime
micro, cluster, mma, out, before, after, nvcc = sys.argv[1:]
doc = json.load(open(micro))
doc["measurements"].update(json.load(open(cluster))["measurements"])
m = json.load(open(mma))
doc["measurements"].update(m["measurements"])
name = doc["device"]
card = next((c for c in ("h200", "h100") if c in name.lower()), re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"))
doc.update({"created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": "tools/gpu/calibrate.sh", "nvcc": nvcc, "torch": m["torch"],
            "triton": m["triton"], "nvidia_smi_before": before, "nvidia_smi_after": after,
            "card": card, "belongs_in": f"tools/bench/{card}_calibration.json"})
open(out, "w").write(json.dumps(doc, indent=1, sort_keys=True) + "\n")
print(f"card: {card} ({name}); commit as {doc['belongs_in']}")
PY
echo "calibration: $out/calibration.json"
