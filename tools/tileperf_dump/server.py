"""The resident export process: the dump step's Python kept running between
the steps that need it, so that a configure, a dump test or an edit's export
does not start Python, import cuTile's compiler and torch (which cuTile's
compiler imports itself when it is installed) and set up torch's fake tensors
again: seconds each time.

    python -m tileperf_dump.server --name NAME [--tools FOLDER] [--idle SECONDS]

is started by the first step that asks for it (:func:`delegate`), in the
background in a session of its own, its output in a log file beside its
socket's lock (``$TMPDIR/tileperf-export-NAME.log``). Each step (the manifest
step of configure, ``run_dump.py`` for the dump batch and a kernel's dump
test) connects to it through a Unix socket in the abstract namespace, named
after what decides the Python it would start (the interpreter, tileperf_dump's
folder, PYTHONPATH, cuTile's environment variables), hands it
its module, arguments, environment, working directory, ``sys.path`` and
standard streams, and waits for its exit code. The server forks a worker per
request with all of that applied, so that steps run side by side (``ctest
-j``) and none sees another's modules, and a worker whose step goes away
(killed, timed out) is killed with everything it started.

The server ends when nothing asked it for ``--idle`` seconds (300 by
default, ``TILEPERF_EXPORT_SERVER_IDLE``), and, before it takes a request,
when a file it imported changed (tileperf_dump, cuTile, torch, pytest:
the step then starts a fresh one). A library's own modules are imported by
the workers only, so an edited library file is always read anew.
``TILEPERF_EXPORT_SERVER=0`` runs each step in its own process instead.
"""

from __future__ import annotations

import argparse
import array
import functools
import gc
import hashlib
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROTOCOL = "tileperf-export/1"
IDLE = 300  # seconds
START_WAIT = 120  # seconds a step waits for a server it started to answer
# The environment variables a server's imports read (cuTile's), part of its
# name; not torch's, which a library may set as it is imported
# (TORCHINDUCTOR_CACHE_DIR) and fake tensors do not read.
ENV_PREFIXES = ("CUDA_TILE",)


def enabled() -> bool:
    """Whether steps go through the resident process (not inside one)."""
    return os.environ.get("TILEPERF_EXPORT_SERVER", "1") not in ("0", "off", "no") and \
        not os.environ.get("TILEPERF_IN_EXPORT_SERVER")


@functools.lru_cache(maxsize=None)
def server_name() -> str:
    """The name of the server a step of this Python would use: what decides
    the modules the server imports once for every step (computed once per
    process, before what a kernel file's import sets)."""
    key = {"python": sys.executable, "tileperf_dump": str(Path(__file__).resolve().parent),
           "pythonpath": os.environ.get("PYTHONPATH", ""),
           "env": sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES))}
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:24]


def _address(name: str) -> str:
    return f"\0tileperf-export-{name}"


def _log_path(name: str) -> Path:
    return Path(tempfile.gettempdir()) / f"tileperf-export-{name}.log"


# --- the step's side -------------------------------------------------------

def _send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode() + b"\n"
    if fds:
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sock.sendall(data)


def _receive(sock: socket.socket) -> dict | None:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


def _connect(name: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(_address(name))
        return sock
    except OSError:
        sock.close()
        return None


def _start(name: str) -> None:
    log = open(_log_path(name), "ab")
    env = dict(os.environ, TILEPERF_IN_EXPORT_SERVER="1")
    subprocess.Popen([sys.executable, "-m", "tileperf_dump.server", "--name", name, "--tools",
                      str(Path(__file__).resolve().parent)], stdin=subprocess.DEVNULL,
                     stdout=log, stderr=log, start_new_session=True, close_fds=True, env=env,
                     cwd=tempfile.gettempdir())
    log.close()


def _ask(name: str, request: dict) -> int | None:
    """The exit code of ``request`` run by the server (minus the signal that
    killed its worker, if one did); None when no server took it (none could
    be reached or started, or it was going away)."""
    sock = _connect(name)
    if sock is None:
        _start(name)
        deadline = time.monotonic() + START_WAIT
        while sock is None and time.monotonic() < deadline:
            time.sleep(0.02)
            sock = _connect(name)
        if sock is None:
            return None
    with sock:
        try:
            _send(sock, request, [0, 1, 2])
            answer = _receive(sock)
        except OSError:
            return None
    if not answer or "exit" not in answer:
        return None  # going away (a file it imported changed), or it died
    if answer.get("signal"):
        return -int(answer["signal"])
    return int(answer["exit"])


def running(wait: float = 0.2) -> bool:
    """Whether the resident export process of this Python is up and taking
    requests (not still importing what it imports first): it answers a ping
    within ``wait`` seconds."""
    sock = _connect(server_name()) if enabled() else None
    if sock is None:
        return False
    with sock:
        try:
            sock.settimeout(wait)
            _send(sock, {"ping": True})
            return bool((_receive(sock) or {}).get("pong"))
        except OSError:
            return False


def start() -> None:
    """Starts the resident export process of this Python in the background
    (when it is not up), for the steps that follow."""
    if enabled() and not running():
        _start(server_name())


def delegate(module: str, argv: list[str]) -> int | None:
    """Runs ``module``'s ``main(argv)`` in the resident export process of
    this Python (started if need be) with this process's environment,
    working directory, ``sys.path`` and standard streams; its exit code, or
    None when the step must run here (the server is off or could not be
    reached)."""
    if not enabled():
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    request = {"protocol": PROTOCOL, "module": module, "argv": argv, "cwd": os.getcwd(),
               "env": dict(os.environ), "path": [p for p in sys.path]}
    name = server_name()
    for _ in range(2):  # a stale server goes away: the second asks a fresh one
        code = _ask(name, request)
        if code is not None:
            if code < 0:  # the worker was killed by a signal: so is this step,
                _end_by_signal(-code)  # as it would have been running here
            return code
    return None


def _end_by_signal(number: int) -> None:
    """Ends this process by signal ``number`` (its default action), so that
    whoever waits for it sees what it would have seen had the step run here."""
    sys.stdout.flush()
    sys.stderr.flush()
    if number not in (signal.SIGKILL, signal.SIGSTOP):  # those have no handler to reset
        signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    time.sleep(1)  # a signal whose default is to stop or to be ignored
    os._exit(128 + number)


# --- the server's side -----------------------------------------------------

def _preload() -> None:
    """What every step imports: pytest, cuTile's compiler (which imports
    torch where it is installed), every module of tileperf_dump, and torch's
    fake tensors, set up once."""
    import pytest  # noqa: F401
    from tileperf_dump.export import preload
    preload()
    folder = Path(__file__).resolve().parent
    for path in sorted(folder.glob("*.py")):
        if path.stem not in ("__init__", "__main__", "dump_driver", "plugin"):  # pytest imports those two
            importlib.import_module(f"tileperf_dump.{path.stem}")
    if "torch" in sys.modules:
        from tileperf_dump.fake_gpu import warm
        warm()
    # What is loaded stays: the garbage collector of each worker (pytest
    # collects twice as it ends) need not walk torch's objects, and forked
    # workers leave their pages shared.
    gc.freeze()


def _snapshot() -> dict[str, tuple[int, int]]:
    """The files of the modules imported so far, with their times and sizes."""
    out = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if name:
            try:
                st = os.stat(name)
                out[name] = (st.st_mtime_ns, st.st_size)
            except OSError:
                pass
    return out


def _changed(snapshot: dict[str, tuple[int, int]]) -> str | None:
    for name, stamp in snapshot.items():
        try:
            st = os.stat(name)
        except OSError:
            return name
        if (st.st_mtime_ns, st.st_size) != stamp:
            return name
    return None


def _receive_request(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    data = b""
    conn.settimeout(10)
    while not data.endswith(b"\n"):
        chunk, ancillary, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
        if not chunk:
            if not data:
                raise EOFError
            raise ConnectionError("the step closed the connection mid-request")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        data += chunk
    conn.settimeout(None)
    return json.loads(data), list(fds)


def _work(request: dict, fds: list[int]) -> int:
    """In the worker: the step, as it would run in its own process."""
    os.setpgid(0, 0)  # its own group: killed as one when the step goes away
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    for fd in fds:
        os.close(fd)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"], TILEPERF_IN_EXPORT_SERVER="1")
    sys.path[:] = request["path"]
    sys.argv = [request["module"], *request["argv"]]
    try:
        return int(importlib.import_module(request["module"]).main(request["argv"]) or 0)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - reported as the step's own failure
        import traceback
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _handle(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In a child of the server: runs the step in a worker, answers its exit
    code, and kills the worker's group when the step goes away first."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            conn.close()
            code = _work(request, fds)
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    watch = os.pidfd_open(pid)
    while True:
        ready, _, _ = select.select([conn, watch], [], [])
        if watch in ready:
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
            try:
                _send(conn, {"exit": code if code >= 0 else 128 - code, "signal": max(0, -code)})
            except OSError:
                pass
            return
        if not conn.recv(1, socket.MSG_PEEK):  # the step went away: so does its work
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return


def serve(name: str, idle: float) -> int:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(_address(name))
    except OSError:
        return 0  # another server of this name is up: the step talks to it
    listener.listen(64)
    _preload()
    snapshot = _snapshot()
    print(f"tileperf export server {name}: pid {os.getpid()}, {len(snapshot)} files loaded", flush=True)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    handlers: set[int] = set()
    last = time.monotonic()
    listener.settimeout(5)
    while True:
        for pid in list(handlers):
            if os.waitpid(pid, os.WNOHANG)[0]:
                handlers.discard(pid)
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            if not handlers and time.monotonic() - last > idle:
                print(f"tileperf export server {name}: idle for {idle:.0f} s, ending", flush=True)
                return 0
            continue
        last = time.monotonic()
        try:
            request, fds = _receive_request(conn)
        except EOFError:
            conn.close()
            continue
        except (OSError, ValueError) as e:
            print(f"tileperf export server {name}: a bad request ({e})", flush=True)
            conn.close()
            continue
        if request.get("ping"):
            try:
                _send(conn, {"pong": True})
            except OSError:
                pass
            conn.close()
            continue
        changed = _changed(snapshot)
        if changed is not None or request.get("protocol") != PROTOCOL:
            listener.close()  # the name is free for a fresh server before the step asks again
            print(f"tileperf export server {name}: {changed or 'another protocol'} changed, ending",
                  flush=True)
            for fd in fds:
                os.close(fd)
            _send(conn, {"stale": True})
            conn.close()
            return 0
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                listener.close()
                _handle(conn, request, fds)
            except BaseException:  # noqa: BLE001 - this request's handler only
                code = 1
            finally:
                os._exit(code)
        handlers.add(pid)
        conn.close()
        for fd in fds:
            os.close(fd)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tileperf_dump.server")
    parser.add_argument("--name", required=True)
    parser.add_argument("--tools", help="the tileperf_dump folder it serves (for ps and pgrep)")
    parser.add_argument("--idle", type=float, default=float(os.environ.get("TILEPERF_EXPORT_SERVER_IDLE", IDLE)))
    args = parser.parse_args(argv)
    return serve(args.name, args.idle)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
