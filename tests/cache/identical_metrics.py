"""Cached and uncached checks give byte-identical metrics, for every perf test.

    python identical_metrics.py --build-dir BUILD --work WORK [--jobs N] [--label perf]

Takes the `tileperf check` command of every perf.* test registered in BUILD
(perf_checks.py) and compares, byte for byte, the
<config>.<arch>.metrics.json of two runs into folders of WORK:

- uncached: the tools ran. The check runs with the build's cache
  (TILEPERF_CACHE_DIR when set, else the run record's); when that is a
  miss, the tools ran and filled the entry (so that the gate, ordered after
  this test, finds it); when it is a hit, the check runs again with the cache
  off. Uncached metrics are kept with a digest of everything they depend on
  (bytecode, dump record, toolchain record, the tileperf executable) and
  reused while that digest holds, so a rerun with nothing changed runs no
  tool;
- cached: the same check with the build's cache, which must be a hit.

Fails unless every pair is identical and every cached run was a hit.
Baselines are never written (TILEPERF_UPDATE_BASELINES is removed).
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from perf_checks import PerfCheck, perf_checks


def run(command: list[str], env: dict) -> tuple[bool, str]:
    """Runs a check; (whether its first line says it came from the cache, output)."""
    r = subprocess.run(command, env=env, capture_output=True, text=True)
    first = r.stdout.splitlines()[0] if r.stdout else ""
    return "(cached" in first, r.stdout + r.stderr


def inputs_digest(check: PerfCheck) -> str:
    """What an uncached run's metrics depend on, besides tileiras's whims."""
    h = hashlib.sha256()
    for path in (check.bytecode, check.bytecode + ".json", check.toolchain, check.command[0]):
        h.update(Path(path).read_bytes())
    return h.hexdigest()


def uncached_metrics(check: PerfCheck, work: Path, env: dict) -> tuple[Path | None, str]:
    folder = work / "uncached" / check.kernel
    metrics = folder / f"{check.config}.{check.arch}.metrics.json"
    stamp = folder / f"{check.config}.{check.arch}.inputs"
    digest = inputs_digest(check)
    if metrics.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return metrics, "reused"
    stamp.unlink(missing_ok=True)
    c = check.command_in(folder)
    hit, said = run(c, env)
    if hit:  # the entry was there: ask the tools themselves
        hit, said = run(c, dict(env, TILEPERF_CACHE_DIR="off"))
        if hit:
            return None, f"a run with the cache off says it was cached:\n{said}"
    if not metrics.is_file():
        return None, f"the uncached run wrote no metrics:\n{said}"
    stamp.write_text(digest)
    return metrics, said


def compare(check: PerfCheck, work: Path) -> str | None:
    """None when the two runs agree, else what went wrong."""
    name, config, arch = check.name, check.config, check.arch
    env = {k: v for k, v in os.environ.items() if k != "TILEPERF_UPDATE_BASELINES"}
    uncached, said = uncached_metrics(check, work, env)
    if uncached is None:
        return f"{name}: {said}"
    folder = work / "cached" / check.kernel
    (folder / f"{config}.{arch}.metrics.json").unlink(missing_ok=True)
    c = check.command_in(folder)
    hit, said = run(c, env)
    if not hit:
        hit, said = run(c, env)
        if not hit:
            return f"{name}: the second cached run was not a hit:\n{said}"
    cached = folder / f"{config}.{arch}.metrics.json"
    if not cached.is_file():
        return f"{name}: the cached run wrote no metrics:\n{said}"
    if not filecmp.cmp(uncached, cached, shallow=False):
        return f"{name}: metrics differ: {uncached} {cached}"
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="identical_metrics.py")
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--label", default="perf")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    commands = perf_checks(args.build_dir, "-L", args.label)
    if not commands:
        print(f"identical_metrics.py: error: no perf test in {args.build_dir}", file=sys.stderr)
        return 2
    with ThreadPoolExecutor(args.jobs) as pool:
        failures = [f for f in pool.map(lambda c: compare(c, args.work), commands) if f]
    for f in failures:
        print(f)
    print(f"{len(commands) - len(failures)} of {len(commands)} perf tests: cached and uncached "
          "metrics byte-identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
