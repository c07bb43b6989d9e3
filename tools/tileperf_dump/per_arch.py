"""A process per architecture: :func:`in_processes` runs a function once per
architecture, each in a child forked from this process, and gathers what
each returned (pickled through a temporary file). The children run at once,
up to the cores this process may use: an architecture's export imports its
library anew, and the three of a file then cost about one on three cores.
"""

from __future__ import annotations

import os
import pickle
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _child(work: Callable[[str], T], arch: str, result: Path) -> int:
    from tileperf_dump import reads
    try:
        value = work(arch)
        data = pickle.dumps((value, reads.recorded()))
    except BaseException:  # anything: the parent reports it as this architecture's failure
        traceback.print_exc()
        return 1
    result.write_bytes(data)
    return 0


def in_processes(work: Callable[[str], T], archs: list[str],
                 failed: Callable[[str, str], T]) -> dict[str, T]:
    """``work(arch)`` for each of ``archs``, each in a process of its own;
    where one dies or raises, ``failed(arch, why)`` stands for its result.
    The files each process read are added to this one's
    (``tileperf_dump.reads``)."""
    from tileperf_dump import reads
    results: dict[str, T] = {}
    with tempfile.TemporaryDirectory(prefix="tileperf-arch-") as folder:
        running: dict[int, tuple[str, Path]] = {}

        def reap() -> None:
            pid, status = os.wait()
            if pid not in running:
                return
            arch, path = running.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            if code == 0 and path.is_file():
                try:
                    results[arch], read = pickle.loads(path.read_bytes())
                    reads.add(read)  # what the architecture's export read is part of the stamp too
                    return
                except Exception as e:  # noqa: BLE001 - a result that cannot be read is a failure
                    code = f"an unreadable result ({e})"
            why = (f"was killed by signal {-code}" if isinstance(code, int) and code < 0
                   else f"failed ({code if isinstance(code, str) else f'exit {code}'}; its "
                        f"traceback is in the output above)")
            results[arch] = failed(arch, why)

        for arch in archs:
            while len(running) >= _cores():
                reap()
            path = Path(folder) / f"{arch}.pickle"
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                code = 70
                try:
                    code = _child(work, arch, path)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            running[pid] = (arch, path)
        while running:
            reap()
    return {arch: results[arch] for arch in archs}
