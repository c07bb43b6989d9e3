"""Cached and uncached checks give byte-identical metrics, for every perf test.

    python identical_metrics.py --build-dir BUILD --work WORK [--jobs N] [--label perf]

Takes the `tileperf check` command of every perf.* test registered in BUILD
(from `ctest --show-only=json-v1`) and compares, byte for byte, the
<config>.<arch>.metrics.json of two runs into folders of WORK:

- uncached: the tools ran. The check runs with the build's cache
  (TILEPERF_CACHE_DIR when set, else the test's --cache-dir); when that is a
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


def perf_commands(build: Path, label: str) -> list[list[str]]:
    out = subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1", "-L", label],
                         check=True, capture_output=True, text=True).stdout
    commands = []
    for test in json.loads(out)["tests"]:
        command = test.get("command", [])
        if test["name"].startswith("perf.") and len(command) > 1 and command[1] == "check":
            commands.append(command)
    return commands


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def with_option(command: list[str], name: str, value: str) -> list[str]:
    command = list(command)
    command[command.index(name) + 1] = value
    return command


def run(command: list[str], env: dict) -> tuple[bool, str]:
    """Runs a check; (whether its first line says it came from the cache, output)."""
    r = subprocess.run(command, env=env, capture_output=True, text=True)
    first = r.stdout.splitlines()[0] if r.stdout else ""
    return "(cached" in first, r.stdout + r.stderr


def inputs_digest(command: list[str]) -> str:
    """What an uncached run's metrics depend on, besides tileiras's whims."""
    bytecode = option(command, "--bytecode")
    h = hashlib.sha256()
    for path in (bytecode, bytecode + ".json", option(command, "--toolchain"), command[0]):
        h.update(Path(path).read_bytes())
    return h.hexdigest()


def uncached_metrics(command: list[str], work: Path, env: dict) -> tuple[Path | None, str]:
    kernel, config, arch = (option(command, k) for k in ("--kernel", "--config", "--arch"))
    folder = work / "uncached" / kernel
    metrics = folder / f"{config}.{arch}.metrics.json"
    stamp = folder / f"{config}.{arch}.inputs"
    digest = inputs_digest(command)
    if metrics.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return metrics, "reused"
    stamp.unlink(missing_ok=True)
    c = with_option(command, "--work-dir", str(folder))
    hit, said = run(c, env)
    if hit:  # the entry was there: ask the tools themselves
        hit, said = run(c, dict(env, TILEPERF_CACHE_DIR="off"))
        if hit:
            return None, f"a run with the cache off says it was cached:\n{said}"
    if not metrics.is_file():
        return None, f"the uncached run wrote no metrics:\n{said}"
    stamp.write_text(digest)
    return metrics, said


def compare(command: list[str], work: Path) -> str | None:
    """None when the two runs agree, else what went wrong."""
    kernel, config, arch = (option(command, k) for k in ("--kernel", "--config", "--arch"))
    name = f"perf.{kernel}.{config}.{arch}"
    env = {k: v for k, v in os.environ.items() if k != "TILEPERF_UPDATE_BASELINES"}
    uncached, said = uncached_metrics(command, work, env)
    if uncached is None:
        return f"{name}: {said}"
    folder = work / "cached" / kernel
    (folder / f"{config}.{arch}.metrics.json").unlink(missing_ok=True)
    c = with_option(command, "--work-dir", str(folder))
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
    commands = perf_commands(args.build_dir, args.label)
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
