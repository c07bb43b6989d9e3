"""Two clones of one project at paths of different lengths share the result cache.

    python clones.py --tileperf-build BUILD --source TILEPERF_SOURCE --work WORK
                     --project {kernels,consumer,flashinfer} [--kernels K,K] [--archs A;A]
                     [--nginx NGINX]

Copies the project (the shipped kernels, in a project of their own that uses
the installed tileperf; tests/consumer/project; examples/flashinfer) to two
folders, WORK/a/<project> and WORK/a-clone-at-a-much-longer-path/<project>,
configures both against tileperf installed from BUILD, and runs:

- the first clone's cold gate with an empty local cache that also writes to
  an nginx WebDAV server (the one tests/cache/remote_cache.py starts);
- the first clone moved away, so that no file of it can be read;
- the second clone's cold gate with the first one's local cache: every perf
  test is a hit, the compile batch compiles nothing, every metrics file is
  byte for byte the first clone's, every state the same, and the TileIR
  listings and remarks name the second clone's folders;
- the same again with an empty local cache and the server alone.

Prints the hit counts and the time of each gate. Exit 77 (skipped) without
nginx, unless CI is set.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cache"))
from remote_cache import Failure, Server, expect  # noqa: E402

LONG = "a-clone-at-a-much-longer-path"
KERNELS_PROJECT = """cmake_minimum_required(VERSION 3.25)
project(tileperf_clone NONE)
enable_testing()
find_package(tileperf 0.1 REQUIRED)
foreach(kernel IN ITEMS {kernels})
  tileperf_add_kernel_tests(KERNEL ${{kernel}} SOURCE kernels/${{kernel}}.py)
endforeach()
"""


def run(command: list[str], env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)


def quiet(command: list[str], what: str, **kw) -> None:
    r = run(command, **kw)
    expect(r.returncode == 0, f"{what} failed ({r.returncode}):\n{r.stdout[-3000:]}{r.stderr[-3000:]}")


def make_source(args, dest: Path) -> Path:
    """The project's files at `dest`; the folder to configure."""
    src = args.source
    if args.project == "kernels":
        (dest / "kernels").mkdir(parents=True)
        for k in args.kernels:
            shutil.copy2(src / "kernels" / f"{k}.py", dest / "kernels" / f"{k}.py")
        (dest / "CMakeLists.txt").write_text(KERNELS_PROJECT.format(kernels=" ".join(args.kernels)))
        shutil.copytree(src / "baselines", dest / "baselines")
        shutil.copytree(src / "checks", dest / "checks")
    elif args.project == "consumer":
        shutil.copytree(src / "tests" / "consumer" / "project", dest)
    else:
        shutil.copytree(src / "examples" / "flashinfer", dest)
    return dest


def configure(args, source: Path, build: Path) -> None:
    command = ["cmake", "-S", str(source), "-B", str(build), f"-DCMAKE_PREFIX_PATH={args.work / 'prefix'}",
               f"-DTILEPERF_PYTHON={args.python}"]
    if args.archs:
        command.append(f"-DTILEPERF_ARCHS={args.archs}")
    quiet(command, f"configuring {source}")


class Gate:
    """One `ctest -L perf` of a clone's build: each test's state, cache use and metrics."""

    def __init__(self, build: Path, env: dict, jobs: int):
        for memo in (build / "tileperf").glob("*/*.memo.json"):
            memo.unlink()  # measured anew, not reused from an earlier run
        start = time.monotonic()
        r = run(["ctest", "--test-dir", str(build), "-L", "perf", "-j", str(jobs)], env=env)
        self.seconds = time.monotonic() - start
        self.log = r.stdout + r.stderr
        self.results: dict[str, dict] = {}
        self.metrics: dict[str, bytes] = {}
        for result in sorted((build / "tileperf").glob("*/*.result.json")):
            name = f"{result.parent.name}/{result.name[:-len('.result.json')]}"
            self.results[name] = json.loads(result.read_text())
            metrics = result.with_name(result.name.replace(".result.json", ".metrics.json"))
            self.metrics[name] = metrics.read_bytes() if metrics.is_file() else b""
        # What the compile batch compiled this run: each configuration's tileiras time.
        batch = build / "tileperf" / "compile-batch.json.all.seconds.json"
        expect(batch.is_file(), f"{build}: the compile batch did not run:\n{self.log[-3000:]}")
        self.compiled = len(json.loads(batch.read_text()))
        batch.unlink()

    def hits(self) -> int:
        return sum(1 for r in self.results.values() if served(r))

    def summary(self, name: str) -> str:
        return (f"{name}: {len(self.results)} perf tests, {self.hits()} cache hits, "
                f"{self.compiled} compiled by the batch, {self.seconds:.1f} s")


def served(result: dict) -> bool:
    """Whether a check ran no tool: a check that compiles records the compile's time."""
    return "compile" not in result.get("seconds", {})


def environment(cache: Path, url: str = "", write: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEPERF_") and k != "CI"}
    env["TILEPERF_CACHE_DIR"] = str(cache)
    if url:
        env.update(TILEPERF_CACHE_URL=url, TILEPERF_CACHE_TIMEOUT="5")
    if write:
        env["TILEPERF_CACHE_WRITE"] = "1"
    return env


def same_as_first(first: Gate, gate: Gate, name: str) -> None:
    expect(set(gate.results) == set(first.results), f"{name}: other tests than the first clone's")
    missed = [t for t, r in gate.results.items() if not served(r)]
    expect(not missed, f"{name}: {len(missed)} tests were not served by the cache: {', '.join(missed[:8])}\n"
           f"{gate.log[-3000:]}")
    expect(gate.compiled == 0, f"{name}: the compile batch compiled {gate.compiled} configurations")
    for t in first.results:
        expect(gate.results[t].get("state") == first.results[t].get("state"),
               f"{name}: {t} ended {gate.results[t].get('state')}, the first clone's {first.results[t].get('state')}")
        expect(gate.metrics[t] and gate.metrics[t] == first.metrics[t],
               f"{name}: {t}: the metrics file differs from the first clone's")


def folders_named(build: Path, root: Path, moved: Path) -> None:
    """The text files of the entries name this clone's folders, never the first clone's."""
    named = 0
    for f in list((build / "tileperf").glob("*/*.tileir")) + list((build / "tileperf").glob("*/*.remarks.yaml")):
        text = f.read_text(errors="replace")
        expect(f"{moved}/" not in text and "<tileperf-root-" not in text,
               f"{f}: names the first clone's folder or a cache token")
        named += str(root) in text
    expect(named > 0, f"no TileIR listing or remarks file of {build} names {root}")


def check(args) -> None:
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    quiet(["cmake", "--install", str(args.tileperf_build), "--prefix", str(work / "prefix")], "installing tileperf")
    first_src = make_source(args, work / "a" / args.project)
    second_src = make_source(args, work / LONG / args.project)
    configure(args, first_src, work / "a" / "build")
    configure(args, second_src, work / LONG / "build")
    server = Server(args.nginx, work / "server")
    lines = []
    try:
        first = Gate(work / "a" / "build", environment(work / "cache", server.url, write=True), args.jobs)
        lines.append(first.summary("first clone, cold, filling the local cache and the server"))
        expect(first.results and first.compiled == len(first.results),
               f"the first clone's cold gate compiled {first.compiled} of {len(first.results)} configurations:\n"
               f"{first.log[-3000:]}")
        expect(len(server.entries()) == len(first.results),
               f"the server holds {len(server.entries())} entries for {len(first.results)} tests")
        moved = work / "a-moved"
        (work / "a").rename(moved)  # no file of the first clone is there to read
        local = Gate(work / LONG / "build", environment(work / "cache"), args.jobs)
        lines.append(local.summary("second clone, cold, with the first clone's local cache"))
        same_as_first(first, local, "local cache")
        folders_named(work / LONG / "build", work / LONG / args.project, work / "a")
        remote = Gate(work / LONG / "build", environment(work / "cache-empty", server.url), args.jobs)
        lines.append(remote.summary("second clone, cold, with an empty local cache and the server"))
        same_as_first(first, remote, "server")
        folders_named(work / LONG / "build", work / LONG / args.project, work / "a")
    finally:
        server.kill()
    print("\n".join(lines))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tileperf-build", type=Path, required=True)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--project", choices=["kernels", "consumer", "flashinfer"], required=True)
    parser.add_argument("--kernels", default="gelu,attention")
    parser.add_argument("--archs", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    args = parser.parse_args(argv)
    args.kernels = args.kernels.split(",")
    args.work = args.work.resolve()
    if not Path(args.nginx).is_file():
        print(f"clones.py: nginx not found at {args.nginx} (Debian: nginx; tools/run installs it)")
        return 1 if os.environ.get("CI") else 77
    try:
        check(args)
    except Failure as e:
        print(f"clones.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
