#!/usr/bin/env python3
"""`tileperf investigate` over every shipped configuration on one
architecture: the investigation's top suggestions with their estimates (the
predictions a later GPU run scores as unseen), and how long an investigation
takes against compiling its variants alone.

    tools/bench/investigate_shipped.py [--build build] [--arch sm_90] [--out PREFIX]

For each test perf.<kernel>.<config>.<arch> of the build's shipped kernels
(those of kernels/), `tileperf investigate --json` runs with a result cache
of its own, empty (TILEPERF_CACHE_DIR), so that every variant is compiled:
its seconds are then the whole of an investigation of a red test whose
variants nobody compiled before; it then runs again with that cache
(`warm`: what a second investigation of the test costs). `compile` is the part that compiles the
variants (tileiras side by side, nvdisasm in a few calls, the way `tileperf
batch` does), `export` the one export process's, `estimate` the
measurements'. One investigation runs first, uncounted, so that the
resident export process is up (as after a run's dump step).

Writes PREFIX.json (each test: the base estimate, the suggestions: every
variant a developer could apply, tile sizes, hints, exp2, token order,
estimated faster by 0.5% or more, best first; where the time goes: the
isolations' shares; the seconds) and PREFIX.md (the table).
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
SUGGESTIONS = ("tune", "hint", "exp2", "token_order")


def shipped_tests(build: Path, arch: str) -> list[str]:
    tests = []
    for record in sorted((build / "tileperf").glob("*/configs.json")):
        r = json.loads(record.read_text())
        if Path(r["source"]).resolve().parent != (TOP / "kernels").resolve():
            continue
        tests += [t["test"] for t in r["tests"] if t["arch"] == arch]
    return tests


def investigate(tileperf: Path, build: Path, test: str, cache: str) -> dict:
    env = dict(os.environ, TILEPERF_CACHE_DIR=cache)
    r = subprocess.run([str(tileperf), "investigate", test, "--build-dir", str(build), "--json"],
                       capture_output=True, text=True, env=env, timeout=1800)
    if r.returncode != 0:
        return {"test": test, "error": (r.stderr or r.stdout).strip().splitlines()[-1:]}
    return json.loads(r.stdout)


def summary(j: dict) -> dict:
    if "error" in j:
        return j
    rows = [r for r in j["variants"] if "change" in r]
    suggestions = [{"kind": r["kind"], "what": r["what"], "time_ns": r["time_ns"], "change": round(r["change"], 4),
                    "limit": r["limit"]}
                   for r in rows if r["kind"] in SUGGESTIONS and r["change"] <= -0.005]
    shares = [{"what": r["what"], "where": r["where"], "share": round(-r["change"], 4)}
              for r in rows if r["kind"] == "isolate" and r["change"] <= -0.005]
    return {"test": j["test"], "time_ns": j["base"]["time_ns"], "limit": j["base"]["limit"],
            "suggestions": suggestions[:3], "where_the_time_goes": shares[:3],
            "variants": len(j["variants"]), "errors": sum(1 for r in j["variants"] if "error" in r),
            "seconds": {k: round(v, 3) for k, v in j["seconds"].items()}}


def markdown(rows: list[dict], arch: str, made: str) -> str:
    ok = [r for r in rows if "error" not in r]
    ratios = [r["seconds"]["all"] / r["seconds"]["compile"] for r in ok if r["seconds"]["compile"] > 0]
    out = [f"# Investigations of the shipped configurations on {arch}", "",
           f"Made by `tools/bench/investigate_shipped.py --arch {arch}` ({made}), before any GPU timed "
           "a suggestion: the predictions a GPU run scores as unseen.", "",
           f"{len(rows)} test(s), {sum(r.get('variants', 0) for r in ok)} variant(s), "
           f"{sum(r.get('errors', 0) for r in ok)} without an estimate (their rows say why). "
           f"An investigation took {statistics.median(r['seconds']['all'] for r in ok):.1f} s (median; "
           f"compiling its variants alone {statistics.median(r['seconds']['compile'] for r in ok):.1f} s): "
           f"{statistics.median(ratios):.2f}x its compilation (median), {max(ratios):.2f}x at most; "
           f"a second investigation of the same test, every compilation in the cache, "
           f"{statistics.median(r['seconds'].get('warm', float('nan')) for r in ok):.2f} s (median).", "",
           "| test | estimate | limit | suggestions (estimate's change) | where the time goes (isolated) | s | x compile |",
           "| --- | ---: | --- | --- | --- | ---: | ---: |"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['test']} | error: {' '.join(r['error'])} | | | | | |")
            continue
        s = "; ".join(f"{x['what']} ({100 * x['change']:+.1f}%)" for x in r["suggestions"]) or "none"
        w = "; ".join(f"{x['what'].split(' -> ')[0]} at {x['where']}: {100 * x['share']:.0f}%"
                      for x in r["where_the_time_goes"]) or "-"
        sec = r["seconds"]
        ratio = sec["all"] / sec["compile"] if sec["compile"] > 0 else float("nan")
        out.append(f"| {r['test']} | {r['time_ns'] / 1e3:.1f} us | {r['limit']} | {s} | {w} | {sec['all']:.1f} | "
                   f"{ratio:.2f} |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=Path, default=TOP / "build")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--tileperf", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None, help="default tools/bench/investigations.<arch>")
    args = ap.parse_args()
    tileperf = args.tileperf or args.build / "tools" / "tileperf"
    out = args.out or TOP / "tools" / "bench" / f"investigations.{args.arch}"
    tests = shipped_tests(args.build, args.arch)
    if not tests:
        sys.exit(f"{args.build}: no shipped test on {args.arch}: configure and build it first")
    rows = []
    with tempfile.TemporaryDirectory(prefix="tileperf-investigate-bench-") as tmp:
        investigate(tileperf, args.build, tests[0], str(Path(tmp) / "warm-up"))
        for i, test in enumerate(tests):
            start = time.perf_counter()
            j = investigate(tileperf, args.build, test, str(Path(tmp) / f"cache-{i}"))
            cold = time.perf_counter() - start
            row = summary(j)
            # Again with the same cache: a red test investigated a second time.
            start = time.perf_counter()
            again = investigate(tileperf, args.build, test, str(Path(tmp) / f"cache-{i}"))
            if "seconds" in row and "seconds" in again:
                row["seconds"]["warm"] = round(time.perf_counter() - start, 3)
                row["warm_cached"] = again.get("cached")
            rows.append(row)
            print(f"[{i + 1}/{len(tests)}] {test}: {cold:.1f} s, again {time.perf_counter() - start:.1f} s", flush=True)
    made = time.strftime("%Y-%m-%d")
    Path(f"{out}.json").write_text(json.dumps({"arch": args.arch, "made": made, "tests": rows}, indent=1) + "\n")
    Path(f"{out}.md").write_text(markdown(rows, args.arch, made))
    print(f"wrote {out}.json and {out}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
