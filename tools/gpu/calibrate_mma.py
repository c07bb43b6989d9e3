#!/usr/bin/env python3
"""Tensor-core microbenchmarks behind the launch model's MMA constants, on a
Hopper GPU with PyTorch and Triton (no cuTile needed):

- the dense fp16 rate of a large matrix product (cuBLAS, through torch), the
  ceiling of tensor-core work per SM and clock;
- a dependent chain of warpgroup MMAs on one accumulator (Triton's tl.dot on
  Hopper issues wgmma): cycles per 64x128x64 step when each MMA waits for the
  last only through the accumulator (the pipelined case);
- the same chain when the product is added to the accumulator outside the
  MMA (acc = acc + dot(a, b)): each step waits for the MMA's result in
  registers (the serialised case).

    python3 tools/gpu/calibrate_mma.py [--cubins DIR] > mma.json

Prints one JSON object; each figure is the median of repeated launches
timed with CUDA events. With --cubins, the chains' cubins are written
there (wgmma_<shape>_<kind>.cubin), so that their SASS can be read where the
disassembler is (the launch model replays them to derive the MMA result
latency, see tools/bench/mma_latency.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _chain(a_ptr, b_ptr, c_ptr, iters, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
           OUTSIDE: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.zeros((M, N), dtype=tl.float32)
    for _ in range(iters):
        if OUTSIDE:
            # The product starts from zeros (acc * 0: not folded without
            # fast math, and it keeps the MMA inside the loop) and is added
            # in registers: each step waits for the MMA's result.
            acc = acc + tl.dot(a, b, acc * 0.0)
        else:
            acc = tl.dot(a, b, acc)
    tl.store(c_ptr + pid * M * N + rm[:, None] * N + rn[None, :], acc)


def time_ms(fn, reps=15):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = []
    for i in range(reps + 3):
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        if i >= 3:
            out.append(start.elapsed_time(end))
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubins", default="")
    args = ap.parse_args()
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    result = {"format": "tileperf-calibration-mma/1", "device": torch.cuda.get_device_name(0),
              "multiprocessors": sms, "torch": torch.__version__, "triton": triton.__version__,
              "measurements": {}}
    m = result["measurements"]

    def add(key, value, unit, how):
        m[key] = {"value": value, "unit": unit, "how": how}
        print(f"{key:<34} {value:12.6g} {unit}", file=sys.stderr)

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    ms = time_ms(lambda: torch.matmul(a, b))
    add("gemm_fp16_tflops", 2 * n ** 3 / ms / 1e9, "TFLOP/s",
        "torch.matmul 8192^3 fp16 (cuBLAS), random inputs")

    for N in (128, 64):
        M, K = 64, 64
        x = torch.randn(M, K, device="cuda", dtype=torch.float16) * 1e-3
        y = torch.randn(K, N, device="cuda", dtype=torch.float16) * 1e-3
        for outside, kind, how in (
                (False, "accumulate", f"acc = dot(a, b, acc): one 64x{N}x64 step"),
                (True, "outside", f"acc = acc + dot(a, b): one 64x{N}x64 step")):
            key = f"wgmma_64x{N}_{kind}"
            c = torch.empty(sms * M * N, device="cuda", dtype=torch.float32)
            per = []
            for iters in (1024, 4096):
                ms = time_ms(lambda: _chain[(sms,)](x, y, c, iters, M=M, N=N, K=K, OUTSIDE=outside,
                                                    num_warps=4))
                per.append(ms)
            compiled = _chain[(sms,)](x, y, c, 8, M=M, N=N, K=K, OUTSIDE=outside, num_warps=4)
            cubin = getattr(compiled, "asm", {}).get("cubin")
            if args.cubins and cubin:
                with open(os.path.join(args.cubins, key + ".cubin"), "wb") as f:
                    f.write(cubin)
            # The difference of two lengths removes the launch and the prologue.
            add(key + "_ns", (per[1] - per[0]) * 1e6 / (4096 - 1024), "ns",
                how + ", one warpgroup per SM on every SM; (t(4096) - t(1024)) / 3072")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
