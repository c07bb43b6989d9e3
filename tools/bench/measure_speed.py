#!/usr/bin/env python3
"""Wall time of the measurement step of every perf test (what `tileperf
check` does after the tools ran: parse the listing, the resource usage, the
remarks and the TileIR, analyse the loops, evaluate the kernel's skeleton for
every block, estimate the launch), for two tileperf binaries side by side in
one run, on the captured tool output a gate left in a build folder.

    python3 tools/bench/measure_speed.py BUILD_DIR TILEPERF_A TILEPERF_B [-r RUNS]

Each run measures every test once with A, then once with B (alternating
which goes first), each test as one `tileperf extract` process. Prints the
median total of each binary over the runs, their ratio, the tests whose
median moved most, and what the difference is per test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def tests_of(build: Path) -> list[dict]:
    out = []
    for cubin in sorted((build / "tileperf").glob("*/*.sm_*.cubin")):
        kernel_dir = cubin.parent
        config, arch = cubin.name[: -len(".cubin")].rsplit(".", 1)
        prefix = kernel_dir / f"{config}.{arch}"
        record = kernel_dir / f"{config}.tileirbc.json"
        files = {ext: Path(f"{prefix}.{ext}") for ext in ("sass", "res-usage.txt", "remarks.yaml", "tileir")}
        if not record.exists() or not all(f.exists() for f in files.values()):
            continue
        out.append({"name": f"{kernel_dir.name}.{config}.{arch}", "cubin": cubin, "record": record,
                    "arch": arch, **files})
    return out


def measure(binary: str, t: dict) -> float:
    cmd = [binary, "extract", "--cubin", str(t["cubin"]), "--sass", str(t["sass"]),
           "--res-usage", str(t["res-usage.txt"]), "--remarks", str(t["remarks.yaml"]),
           "--tileir", str(t["tileir"]), "--dump-info", str(t["record"]), "--arch", t["arch"],
           "-o", "/dev/null"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("-r", "--runs", type=int, default=5)
    ap.add_argument("--json", type=Path, help="also write every time here")
    args = ap.parse_args(argv)
    tests = tests_of(args.build)
    if not tests:
        print(f"measure_speed: no perf test's output under {args.build}/tileperf", file=sys.stderr)
        return 2
    times = {side: {t["name"]: [] for t in tests} for side in ("a", "b")}
    totals = {"a": [], "b": []}
    for run in range(args.runs):
        order = ("a", "b") if run % 2 == 0 else ("b", "a")
        for side in order:
            binary = args.a if side == "a" else args.b
            total = 0.0
            for t in tests:
                s = measure(binary, t)
                times[side][t["name"]].append(s)
                total += s
            totals[side].append(total)
        print(f"run {run + 1}: A {totals['a'][-1]:.2f} s, B {totals['b'][-1]:.2f} s", flush=True)
    med = {side: statistics.median(v) for side, v in totals.items()}
    print(f"{len(tests)} tests, {args.runs} runs: median A {med['a']:.2f} s, B {med['b']:.2f} s, "
          f"B/A {med['b'] / med['a']:.3f}, B - A {1000 * (med['b'] - med['a']) / len(tests):+.1f} ms per test")
    moved = sorted(tests, key=lambda t: statistics.median(times["b"][t["name"]]) -
                   statistics.median(times["a"][t["name"]]), reverse=True)
    for t in moved[:8]:
        a, b = statistics.median(times["a"][t["name"]]), statistics.median(times["b"][t["name"]])
        print(f"  {t['name']:<48} A {1000 * a:7.1f} ms  B {1000 * b:7.1f} ms  {1000 * (b - a):+7.1f} ms")
    if args.json:
        args.json.write_text(json.dumps({"tests": len(tests), "runs": args.runs, "totals": totals,
                                         "times": times}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
