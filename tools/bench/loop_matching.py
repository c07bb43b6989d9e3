#!/usr/bin/env python3
"""How the compiled loops of a build's configurations are matched to the loops
of their kernels' TileIR.

    tools/bench/loop_matching.py [--tileperf BIN] [--jobs N] [--list] <build>/tileperf...

runs `tileperf loops --json` on the cubin of every test that a build's kernel
folders register (each <kernel>/configs.json) and counts the compiled loops,
the retry loops of barrier waits and register allocations aside:

  matched     the one compiled loop of its TileIR loop where it runs (under
              the same compiled loop, or at the top of its function)
  duplicated  one of several compiled loops of one TileIR loop where it runs:
              copies run by different warps (warp roles, each running every
              iteration) or copies that share the iterations (a loop the
              compiler unrolled with a remainder, peeled or versioned)
  unmatched   no TileIR loop: its trip count is assumed
  misnested   matched to a TileIR loop that is not inside the one the
              compiled loop around it matched
  named       the compiler's own loop, named with what it runs (an elect
              loop: once; a loop it counts with constants: their count)

and how the trips were given where not whole (the loops' `trips_share`, where
the tileperf that ran reports one). With --list, every loop that is not
plainly matched, with its configuration. The tileperf command is
build/tools/tileperf of this checkout unless --tileperf names another (the
same loops under two versions of the analysis).
"""
import argparse
import collections
import concurrent.futures
import json
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]


def tests_of(work: Path):
    """(kernel folder, test name, cubin) of every test a build registers."""
    for listing in sorted(work.glob("*/configs.json")):
        for t in json.loads(listing.read_text()).get("tests", []):
            cubin = listing.parent / f"{t['config']}.{t['arch']}.cubin"
            if cubin.is_file():
                yield t["test"], cubin


def loops_of(tileperf: str, cubin: Path) -> dict:
    out = subprocess.run([tileperf, "loops", "--json", str(cubin)], capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
    return json.loads(out.stdout)


def inside(skeleton: list, loop: int, outer: int) -> bool:
    """Whether TileIR loop `loop` is nested (at any depth) in `outer`."""
    p = skeleton[loop]["parent"]
    while p >= 0:
        if p == outer:
            return True
        p = skeleton[p]["parent"]
    return False


def warp_set(text: str) -> set:
    """"warps 0-3, 5" -> {0, 1, 2, 3, 5}."""
    words = text.split(" ", 1)
    if len(words) < 2 or words[0] not in ("warp", "warps"):
        return set()
    out = set()
    for part in words[1].split(","):
        lo, _, hi = part.strip().partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out


def share_kind(text: str) -> str:
    """A loop's trips_share as a kind: what it says without its addresses."""
    for words, kind in (("peeled off before it", "the loop, less the iterations peeled off it"),
                        ("in an iteration peeled off", "in an iteration peeled off the loop around it"),
                        ("which the compiler unrolled", "in an iteration of the loop around it, unrolled"),
                        ("per trip", "unrolled, with a remainder copy"),
                        ("leaves", "the remainder of an unrolled copy"),
                        ("sharing its iterations", "copies sharing the iterations alike")):
        if words in text:
            return kind
    return text


def classify(report: dict):
    """(category, how, loop) for each compiled loop that is not a retry loop."""
    loops = report["loops"]
    skeleton = report.get("skeleton", {}).get("loops", [])
    place = collections.defaultdict(list)  # (function, compiled parent, TileIR loop) -> compiled loops
    for i, l in enumerate(loops):
        for source in l.get("tileir_loops", []):
            if not l["spin"]:
                place[(l["function"], l["parent"], source)].append(i)
    for i, l in enumerate(loops):
        if l["spin"]:
            continue
        sources = l.get("tileir_loops", [])
        share = share_kind(l.get("trips_share", ""))
        if l.get("elect"):
            yield "named", "elect loops (run once)", l
            continue
        if not sources:
            yield ("named", "the compiler's, counted from its SASS", l) if l["trips_from"] == "counted" else \
                ("unmatched", "", l)
            continue
        parent = l["parent"]
        outer = loops[parent].get("tileir_loops", []) if parent >= 0 else []
        if outer and not all(any(inside(skeleton, s, o) for o in outer) for s in sources):
            yield "misnested", share, l
        elif any(len(place[(l["function"], parent, s)]) > 1 for s in sources) or "the loop around it" in share:
            others = {j for s in sources for j in place[(l["function"], parent, s)] if j != i}
            mine = warp_set(l["warps"])
            roles = all(not (mine & warp_set(loops[j]["warps"])) for j in others)
            how = share if share and "less the iterations" not in share else ""
            yield "duplicated", how or ("warp-role copies, each every iteration" if roles else
                                        "copies run by the same warps, each the whole count"), l
        else:
            yield "matched", share, l


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("work", type=Path, nargs="+")
    parser.add_argument("--tileperf", default=str(TOP / "build" / "tools" / "tileperf"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    tests = [t for w in args.work for t in tests_of(w)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        reports = list(pool.map(lambda t: loops_of(args.tileperf, t[1]), tests))
    counts, hows, errors = collections.Counter(), collections.Counter(), []
    for (test, _), report in zip(tests, reports):
        if "error" in report:
            errors.append(f"{test}: {' '.join(report['error'])}")
            continue
        for category, how, loop in classify(report):
            counts[category] += 1
            if how:
                hows[(category, how)] += 1
            if args.list and (category != "matched" or how):
                where = f" {loop['lines']}" if loop.get("lines") else ""
                share = loop.get("trips_share", "")
                print(f"  {category:10} {test} {loop['begin']:#06x}{where} {loop['warps']}: trips {loop['trips']:g} "
                      f"({loop['trips_from']}{'; ' + share if share else ''})")
    total = sum(counts.values())
    print(f"{len(tests)} tests, {total} compiled loops: " +
          ", ".join(f"{counts[c]} {c}" for c in ("matched", "duplicated", "unmatched", "misnested", "named")))
    for (category, how), n in sorted(hows.items(), key=lambda s: (s[0][0], -s[1])):
        print(f"  {category}, {how}: {n}")
    for e in errors:
        print(f"  not read: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
