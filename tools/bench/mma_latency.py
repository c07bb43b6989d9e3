#!/usr/bin/env python3
"""How late a warpgroup MMA's results are usable after its tensor-core time:
the launch model's mma_result latency, derived from the MMA microbenchmark.

tools/gpu/calibrate_mma.py timed, on the H200, a dependent chain of
warpgroup MMAs whose product is added to the accumulator outside the MMA
(each step waits for the MMA's results), and kept its cubins
(tools/bench/h200_mma/). This replays each chain's own SASS with the
launch model (`tileperf loops --latency mma_result=0`) and compares the
replayed cycles per step with the measured ones: the difference, per
result wait, is the latency the model lacks.

    python3 tools/bench/mma_latency.py [--tileperf build/tools/tileperf]
        [--calibration tools/bench/h100_calibration.json --cubins DIR]   # another card
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tileperf", default=str(TOP / "build/tools/tileperf"))
    ap.add_argument("--cuobjdump", default=str(next(TOP.glob(".venv/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump"), "cuobjdump")))
    ap.add_argument("--calibration", type=Path, default=TOP / "tools/bench/h200_calibration.json",
                    help="the card's calibration (an H100's: tools/bench/h100_calibration.json)")
    ap.add_argument("--cubins", type=Path, default=TOP / "tools/bench/h200_mma",
                    help="the chains' cubins that calibrate.sh kept on the same card")
    args = ap.parse_args()
    cal = json.loads(args.calibration.read_text())
    clock = cal["measurements"]["sm_clock_ghz"]["value"]
    print(f"{'chain':<28} {'measured':>9} {'replayed':>9} {'waits':>6} {'latency per wait':>17}")
    for shape in ("64x128", "64x64"):
        for kind, waits_per_step in (("outside", 1), ("accumulate", 0)):
            name = f"wgmma_{shape}_{kind}"
            ns = cal["measurements"][name + "_ns"]["value"]
            out = subprocess.run([args.tileperf, "loops", str(args.cubins / f"{name}.cubin"), "--json",
                                  "--cuobjdump", args.cuobjdump, "--latency", "mma_result=0"],
                                 capture_output=True, text=True, check=True)
            loops = [l for l in json.loads(out.stdout)["loops"] if not l["spin"]]
            main_loop = next(l for l in loops if l["main"])
            # A step of the chain is four 16-deep MMAs (K = 64); Triton
            # unrolls the accumulating chain, so an iteration may hold several.
            steps = max(1, main_loop["mma"] // 4)
            replay = main_loop["replay_cycles_per_iteration"] / steps
            measured = ns * clock
            extra = (measured - replay) / waits_per_step if waits_per_step else float("nan")
            print(f"{name:<28} {measured:9.1f} {replay:9.1f} {waits_per_step:6d} {extra:17.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
