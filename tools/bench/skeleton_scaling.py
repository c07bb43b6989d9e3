#!/usr/bin/env python3
"""Time and peak memory of the scalar evaluator (`tileperf extract
--tileir ... --dump-info ...`, on the captured gelu's cubin and listing)
against the size of a generated TileIR skeleton, the operations it
executes and the blocks of its launch; then the hostile inputs of
docs/design/hostile-inputs.md, each with how it ends.

    python3 tools/bench/skeleton_scaling.py [--tileperf build/tools/tileperf] [--runs 3] [--quick]

Each row is the median of RUNS runs (wall time) and the largest peak
resident memory of them (GNU time's %M). Prints Markdown tables.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
TIME = "/usr/bin/time"  # GNU time (Debian: time)
GELU = TOP / "tests" / "fixtures" / "13.4.92" / "gelu.f16_1024.sm_120"
HEAD = "entry @k(%arg0: tile<i32>, %arg1: tile<i64>) optimization_hints=<default = {}> {\n"
CONSTANTS = ("  %z = constant <i32: 0> : tile<i32>\n  %o = constant <i32: 1> : tile<i32>\n"
             "  %bx, %by, %bz = get_tile_block_id : tile<i32>\n")


def kernel(body: str) -> str:
    return HEAD + CONSTANTS + body + "  return\n}\n"


def iterated_loop(k: int, trips: str) -> str:
    """A loop whose body decides from its induction variable: iterated one by one."""
    return (f"  for %i{k} in (%z to {trips}, step %o) : tile<i32> {{\n"
            f"    %c{k} = cmpi less_than %i{k}, %o, signed : tile<i32> -> tile<i1>\n"
            f"    if %c{k} {{\n      continue\n    }}\n  }}\n")


def loops(n: int) -> str:
    return kernel("  %n = constant <i32: 4> : tile<i32>\n" + "".join(iterated_loop(k, "%n") for k in range(n)))


def steps(trips: int) -> str:
    return kernel(f"  %n = constant <i32: {trips}> : tile<i32>\n" + iterated_loop(0, "%n"))


def deep(ops: int, depth: int = 62) -> str:
    """`ops` scalar operations inside `depth` nested loops of one trip."""
    body = "".join(f"  for %d{k} in (%z to %o, step %o) : tile<i32> {{\n" for k in range(depth))
    body += "".join(f"    %a{k} = addi %o, %o : tile<i32>\n" for k in range(ops))
    return kernel(body + "  }\n" * depth)


def last_block(grid_x: int) -> str:
    """The last block along x runs a loop the others do not: two classes."""
    return kernel(f"  %l = constant <i32: {grid_x - 1}> : tile<i32>\n"
                  "  %c = cmpi equal %bx, %l, signed : tile<i32> -> tile<i1>\n"
                  "  %n = select %c, %o, %z : tile<i1>, tile<i32>\n"
                  "  for %i in (%z to %n, step %o) : tile<i32> {\n  }\n")


def causal() -> str:
    """Trips from block id x: a class per block along x."""
    return kernel("  %n = addi %bx, %o : tile<i32>\n  for %i in (%z to %n, step %o) : tile<i32> {\n  }\n")


def problem(grid: list[int]) -> dict:
    return {"problem": {"grid": grid, "blocks": 1, "trips": []}}


def hostile() -> list[tuple[str, str, list[int]]]:
    """(case, TileIR, grid): the issue's inputs and their kind."""
    nested = lambda word, n: kernel(  # noqa: E731
        "  %c = constant <i1: true> : tile<i1>\n" + (word + "\n") * n + "  }\n" * n)
    return [
        ("a for whose region has no induction variable",
         kernel("  for %i in (%z to %o, step %o) : tile<i32>\n  () {\n  }\n"), [1]),
        ("50,000 nested if", nested("  if %c {", 50000), [1]),
        ("16,000 nested for", nested("  for %i in (%z to %o, step %o) : tile<i32> {", 16000), [1]),
        ("a 13 KB line of 65,536 results each",
         kernel("  " + ", ".join(f"%a{i}:65536" for i in range(1000)) + " = get_tile_block_id : tile<i32>\n"), [1]),
        ("30,000 small iterated loops (4.9 MB)", loops(30000), [1]),
        ("a bound from block id x on [2, 2^30]", last_block(2), [2, 1 << 30]),
        ("a bound from block id x on [2^31 - 1]", last_block((1 << 31) - 1), [(1 << 31) - 1]),
        ("a bound from bid(0) + bid(1) on 2^40 blocks",
         kernel("  %n = addi %bx, %by : tile<i32>\n  for %i in (%z to %n, step %o) : tile<i32> {\n  }\n"),
         [1 << 20, 1 << 20]),
        ("a four-dimensional grid", last_block(2), [2, 2, 2, 2]),
        ("absi of INT64_MIN", kernel("  %m = constant <i64: -9223372036854775808> : tile<i64>\n"
                                     "  %a = absi %m : tile<i64>\n"), [1]),
        ("<i64: 99999999999999999999999>",
         kernel("  %m = constant <i64: 99999999999999999999999> : tile<i64>\n"), [1]),
        ("2^26 operations (the step bound)", steps(1 << 25), [1]),
    ]


def run_once(tileperf: str, tileir: Path, record: Path) -> tuple[float, int, int, str]:
    """Seconds, peak KB, exit code and the first line of the error of one
    run. The peak is GNU time's (%M, of tileperf alone): a child's
    ru_maxrss seen from here would count this script's pages it was forked
    with."""
    command = [tileperf, "extract", "--cubin", f"{GELU}.cubin", "--sass", f"{GELU}.sass", "--res-usage",
               f"{GELU}.res-usage.txt", "--tileir", str(tileir), "--dump-info", str(record)]
    start = time.monotonic()
    r = subprocess.run([TIME, "-f", "peak %M", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    seconds = time.monotonic() - start
    lines = r.stderr.splitlines()
    peak = int(lines[-1].split()[-1]) if lines and lines[-1].startswith("peak ") else 0
    error = next((line for line in lines if line.startswith("tileperf: error:")), "")
    return seconds, peak, r.returncode, error


def measure(tileperf: str, folder: Path, name: str, text: str, grid: list[int], runs: int):
    tileir = folder / f"{name}.tileir"
    record = folder / f"{name}.json"
    tileir.write_text(text)
    record.write_text(json.dumps(problem(grid)))
    results = [run_once(tileperf, tileir, record) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results), results[0][2], results[0][3]


def series(tileperf: str, folder: Path, runs: int, quick: bool) -> None:
    scale = 4 if quick else 1
    rows = [("loops", f"{n} iterated loops", loops(n), [1]) for n in (1000, 2000, 4000, 8000, 16000)[: 5 // scale + 1]]
    rows += [("steps", f"one loop of {t} trips", steps(t), [1]) for t in (1 << 16, 1 << 18, 1 << 20, 1 << 22)]
    rows += [("size", f"{n} operations 62 loops deep", deep(n), [1]) for n in (1 << 14, 1 << 16, (1 << 18) - 512)]
    rows += [("blocks", f"2 classes, grid [{g}]", last_block(g), [g])
             for g in (1 << 10, 1 << 16, 1 << 20, 1 << 25, (1 << 31) - 1)]
    rows += [("classes", f"a class per block, grid [{g}]", causal(), [g]) for g in (1 << 8, 1 << 10, 1 << 12, 1 << 14)]
    print("| series | input | bytes | median s | peak MB | exit |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for i, (kind, label, text, grid) in enumerate(rows):
        seconds, kb, code, error = measure(tileperf, folder, f"s{i}", text, grid, runs)
        print(f"| {kind} | {label} | {len(text.encode())} | {seconds:.3f} | {kb / 1024:.0f} | {code} |", flush=True)


def hostile_table(tileperf: str, folder: Path, runs: int) -> None:
    print("\n| hostile input | median s | peak MB | exit | error |")
    print("| --- | ---: | ---: | ---: | --- |")
    for i, (label, text, grid) in enumerate(hostile()):
        seconds, kb, code, error = measure(tileperf, folder, f"h{i}", text, grid, runs)
        shown = error.split(": error: ", 1)[-1] if error else ""
        shown = shown.split(": ", 1)[-1] if shown.startswith("/") else shown
        print(f"| {label} | {seconds:.3f} | {kb / 1024:.0f} | {code} | {shown[:160]} |", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="skeleton_scaling.py")
    parser.add_argument("--tileperf", default=str(TOP / "build" / "tools" / "tileperf"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer sizes (a smoke test)")
    args = parser.parse_args(argv)
    if not os.access(TIME, os.X_OK):
        print(f"skeleton_scaling.py: {TIME} (GNU time, Debian package time) is needed for the peak memory")
        return 2
    print(f"{os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[0]}, {args.runs} runs per row\n")
    with tempfile.TemporaryDirectory() as d:
        series(args.tileperf, Path(d), args.runs, args.quick)
        hostile_table(args.tileperf, Path(d), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
