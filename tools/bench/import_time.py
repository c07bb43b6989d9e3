#!/usr/bin/env python3
"""Seconds to import parts of tileperf_dump in a fresh interpreter, for two
copies of tools/ side by side (the default: main's checkout and this one),
RUNS times each, interleaved. Prints the median of each statement per copy
and the ratio after/before.

    .venv/bin/python tools/bench/import_time.py [--before DIR] [--after DIR] [--runs N]
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

# label: (statement, the same statement for a copy of tools/ from before the
# atomic writer had a module of its own)
STATEMENTS = {
    "authoring (Config, Problem, cdiv)": ("from tileperf_dump import Config, Problem, cdiv",) * 2,
    "authoring with array": ("from tileperf_dump import Config, Problem, array, cdiv",) * 2,
    "the atomic writer": ("from tileperf_dump.files import write_atomic",
                          "from tileperf_dump import _write_atomic"),
    "package alone": ("import tileperf_dump",) * 2,
}


def seconds(tools: Path, statement: str) -> float | None:
    """Wall time of one interpreter that runs the statement; None when it fails."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", statement], env={"PYTHONPATH": str(tools)},
                          capture_output=True)
    return time.perf_counter() - start if done.returncode == 0 else None


def main() -> int:
    top = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, default=Path("/work/main/tools"))
    parser.add_argument("--after", type=Path, default=top / "tools")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    empty = statistics.median(seconds(args.after, "pass") for _ in range(args.runs))
    print(f"interpreter start alone: {empty * 1000:.0f} ms (included below)")
    for label, (statement, old_statement) in STATEMENTS.items():
        times = {"before": [], "after": []}
        for _ in range(args.runs):
            times["before"].append(seconds(args.before, statement)
                                   or seconds(args.before, old_statement))
            times["after"].append(seconds(args.after, statement))
        medians = {s: statistics.median(t) if None not in t else None for s, t in times.items()}
        text = {s: f"{m * 1000:.0f} ms" if m is not None else "fails" for s, m in medians.items()}
        ratio = (f"{medians['after'] / medians['before']:.2f}"
                 if None not in medians.values() else "-")
        print(f"{label:36s} before {text['before']:>8s}  after {text['after']:>8s}  ratio {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
