"""The remote cache against a real server: nginx with its WebDAV module,
started by this test on loopback, in the layout remote_cache.h describes.

    python remote_cache.py --build-dir BUILD --work WORK [--regex REGEX]

Runs the `tileperf check` commands of some perf tests of BUILD (REGEX;
perf_checks.py), each with a local cache of its own scenario:

- fill: writing allowed, an empty server: every check compiles and the
  server then holds one manifest per test;
- hit: another empty local cache, reading only: every check is served by
  the server, with the metrics of the fill, and nothing is written;
- miss: tests the server lacks compile, and a reader writes nothing;
- corrupted: a file of one entry altered on the server: that entry is not
  used (said once), the check compiles, the others are hits;
- hostile: a manifest that names "..", "." or a 300-character file: the
  entry is refused (said), the check compiles;
- killed: the server killed after the second check: the rest go on with the
  local cache, the failure is said once, and no check waits past its bound;
- refused: a server that refuses PUT: the checks pass, the refusal is said
  once, nothing is stored.

Every check must end as in the fill run, metrics byte for byte, and the
bearer token must appear in no output. Exit 77 (skipped) without nginx,
unless CI is set.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from perf_checks import PerfCheck, perf_checks

TOKEN = "tileperf-test-token-9f3a"
NGINX_CONF = """daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log {dir}/access.log;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  client_max_body_size 64m;
  server {{
    listen 127.0.0.1:{port};
    root {dir}/store;
    location / {{
      dav_methods PUT;
      create_full_put_path on;
      {refuse}
    }}
  }}
}}
"""


class Failure(Exception):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """nginx on 127.0.0.1, serving WORK/<name>/store."""

    def __init__(self, nginx: str, root: Path, refuse_put: bool = False):
        self.dir = root
        shutil.rmtree(root, ignore_errors=True)
        (root / "store").mkdir(parents=True)
        self.port = free_port()
        refuse = "limit_except GET HEAD { deny all; }" if refuse_put else ""
        (root / "nginx.conf").write_text(NGINX_CONF.format(dir=root, port=self.port, refuse=refuse))
        self.proc = subprocess.Popen([nginx, "-p", str(root), "-c", str(root / "nginx.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise Failure(f"nginx did not start: {self.proc.stderr.read().decode(errors='replace')}")
                time.sleep(0.05)
        raise Failure("nginx did not listen within 10 s")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/tileperf"

    def entries(self) -> list[Path]:
        return sorted((self.dir / "store" / "tileperf" / "ac").glob("*"))

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


class Run:
    """One check: its exit code, output, whether it was a hit, its metrics, its time."""

    def __init__(self, check: PerfCheck, work: Path, env: dict):
        folder = work / check.kernel
        start = time.monotonic()
        r = subprocess.run(check.command_in(folder), env=env, capture_output=True, text=True)
        self.seconds = time.monotonic() - start
        self.name = check.name
        self.code = r.returncode
        self.out = r.stdout
        self.err = r.stderr
        first = r.stdout.splitlines()[0] if r.stdout else ""
        self.hit = "(cached" in first
        metrics = folder / f"{check.config}.{check.arch}.metrics.json"
        self.metrics = metrics.read_bytes() if metrics.is_file() else b""


def scenario(work: Path, name: str, commands: list[PerfCheck], url: str, write: bool,
             between=None) -> list[Run]:
    folder = work / name
    shutil.rmtree(folder, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEPERF_")}
    env.update(TILEPERF_CACHE_DIR=str(folder / "cache"), TILEPERF_CACHE_URL=url, TILEPERF_CACHE_TOKEN=TOKEN,
               TILEPERF_CACHE_TIMEOUT="5")
    if write:
        env["TILEPERF_CACHE_WRITE"] = "1"
    runs = []
    for i, c in enumerate(commands):
        if between:
            between(i)
        runs.append(Run(c, folder, env))
    for r in runs:
        if TOKEN in r.out or TOKEN in r.err:
            raise Failure(f"{name}: {r.name} printed the bearer token")
    return runs


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Failure(what)


def same_as(reference: dict[str, Run], runs: list[Run], name: str) -> None:
    for r in runs:
        ref = reference[r.name]
        expect(r.code == ref.code, f"{name}: {r.name} exit {r.code}, the fill run's {ref.code}:\n{r.out}{r.err}")
        expect(r.metrics == ref.metrics and r.metrics, f"{name}: {r.name}: metrics differ from the fill run's")


def notes(runs: list[Run], text: str) -> int:
    return sum(r.err.count(text) for r in runs)


def hostile_manifests(work: Path, server: Server, victim: Path, manifest: dict, checks: list[PerfCheck],
                      reference: dict[str, Run]) -> None:
    """The victim's manifest naming a file "..", "." or of 300 characters
    (with the content of its cubin): refused, said so, and compiled."""
    whole = victim.read_bytes()
    for name in ("..", ".", "x" * 300):
        hostile = json.loads(whole)
        hostile["files"][name] = manifest["files"]["cubin"]
        victim.write_text(json.dumps(hostile))
        runs = scenario(work, "hostile", checks, server.url, write=False)
        expect(notes(runs, "is refused (it names a file") == 1,
               f"hostile {name[:8]!r}: the refusal was not said once: " + "".join(r.err for r in runs))
        expect(sum(not r.hit for r in runs) == 1, f"hostile {name[:8]!r}: the refused entry was used")
        same_as(reference, runs, f"hostile {name[:8]!r}")
    victim.write_bytes(whole)


def check_all(build: Path, work: Path, regex: str, nginx: str) -> None:
    commands = perf_checks(build, "-R", regex)
    expect(len(commands) >= 6, f"fewer than 6 perf tests match {regex}")
    first, extra = commands[:6], commands[6:8]
    server = Server(nginx, work / "server")
    try:
        fill = scenario(work, "fill", first, server.url, write=True)
        expect(not any(r.hit for r in fill), "fill: a check was a hit in an empty cache")
        expect(len(server.entries()) == len(first), f"fill: the server holds {len(server.entries())} entries, "
               f"not {len(first)}")
        reference = {r.name: r for r in fill}

        hit = scenario(work, "hit", first, server.url, write=False)
        expect(all(r.hit for r in hit), "hit: a check was not served by the server: " +
               "".join(r.out + r.err for r in hit if not r.hit))
        same_as(reference, hit, "hit")

        before = len(server.entries())
        miss = scenario(work, "miss", extra, server.url, write=False)
        expect(not any(r.hit for r in miss), "miss: a test the server lacks was a hit")
        expect(len(server.entries()) == before, "miss: a reader wrote to the server")
        reference.update({r.name: r for r in scenario(work, "miss-alone", extra, "", write=False)})
        same_as(reference, miss, "miss")

        victim = server.entries()[0]
        manifest = json.loads(victim.read_text())
        cubin = server.dir / "store" / "tileperf" / "cas" / manifest["files"]["cubin"]["sha256"]
        whole = cubin.read_bytes()
        data = bytearray(whole)
        data[len(data) // 2] ^= 0xFF
        cubin.write_bytes(bytes(data))
        corrupted = scenario(work, "corrupted", first, server.url, write=False)
        expect(sum(not r.hit for r in corrupted) >= 1, "corrupted: the altered entry was used")
        expect(notes(corrupted, "is not whole") >= 1, "corrupted: the altered entry was not reported")
        same_as(reference, corrupted, "corrupted")
        # Whole again, whichever check's entry it was (keys, and so which entry
        # sorts first, depend on the checkout's path).
        cubin.write_bytes(whole)
        hostile_manifests(work, server, victim, manifest, first, reference)

        def kill_after_two(i: int) -> None:
            if i == 2:
                server.kill()
        killed = scenario(work, "killed", first, server.url, write=False, between=kill_after_two)
        expect(all(r.hit for r in killed[:2]), "killed: the checks before the kill were not hits")
        expect(not any(r.hit for r in killed[2:]), "killed: a check after the kill was a hit")
        expect(notes(killed, "read failed") == 1, "killed: the failure was not said exactly once: " +
               "".join(r.err for r in killed))
        expect(max(r.seconds for r in killed[2:]) < 60, "killed: a check waited past its bound")
        same_as(reference, killed, "killed")
    finally:
        server.kill()

    refusing = Server(nginx, work / "refusing", refuse_put=True)
    try:
        refused = scenario(work, "refused", first[:3], refusing.url, write=True)
        expect(notes(refused, "write failed (HTTP 403)") == 1, "refused: the refusal was not said exactly once: " +
               "".join(r.err for r in refused))
        expect(not refusing.entries(), "refused: the refusing server stored an entry")
        same_as(reference, refused, "refused")
    finally:
        refusing.kill()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="remote_cache.py")
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--regex", default=r"^perf\.gelu\.")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    args = parser.parse_args(argv)
    if not Path(args.nginx).is_file():
        print(f"remote_cache.py: nginx not found at {args.nginx} (Debian: nginx; tools/run installs it)")
        return 1 if os.environ.get("CI") else 77
    try:
        check_all(args.build_dir, args.work.resolve(), args.regex, args.nginx)
    except Failure as e:
        print(f"remote_cache.py: {e}")
        return 1
    print("remote cache: fill, hit, miss, corrupted entry, hostile manifests, server killed mid-run and refused "
          "PUT: every check as in the fill run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
