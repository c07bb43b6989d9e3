"""The files an export reads, besides the Python it imports: a kernel
inventory's definitions and workloads, a file a configuration names, a
library's data. :func:`watch` starts recording them (an audit hook on
``open``, once per process); :func:`files` gives those recorded, for the dump
step's stamp (``run_dump.py``), which then holds their SHA-256 so that an
edit of any of them exports again. Importing this module imports nothing
of cuTile or torch."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# What a file opened for writing or appending is opened with.
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
# Python's own sources and compiled modules: the stamp follows imported
# modules by themselves (run_dump.py), not as files read.
_MODULE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyd", ".so")
_SYSTEM = ("/proc/", "/sys/", "/dev/")

_FILES: set[str] = set()
_WATCHING = [False]


def _reads(args) -> str | None:
    """The path an ``open`` audit event opens for reading, if it does."""
    if not args or not isinstance(args[0], (str, bytes, os.PathLike)):
        return None
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return None
    if mode is None and flags & _WRITE_FLAGS:
        return None
    path = os.fsdecode(args[0])
    return path if not path.startswith(_SYSTEM) else None


def _hook(event: str, args) -> None:
    if event == "open":
        path = _reads(args)
        if path is not None:
            _FILES.add(os.path.abspath(path))


def watch() -> None:
    """Records from now on every file this process opens for reading."""
    if not _WATCHING[0]:
        sys.addaudithook(_hook)
        _WATCHING[0] = True


def add(paths) -> None:
    """Files another process read for this one (an architecture's export)."""
    _FILES.update(paths)


def files(exclude: Path | None = None) -> list[Path]:
    """The data files read so far that exist (not folders, modules, the
    interpreter's own library, nor anything under ``exclude``: what the
    export wrote)."""
    stdlib = Path(sys.base_prefix).resolve()
    out = []
    for name in _FILES:
        path = Path(name)
        if name.endswith(_MODULE_SUFFIXES) or not path.is_file():
            continue
        resolved = path.resolve()
        if resolved.is_relative_to(stdlib) or (exclude is not None and resolved.is_relative_to(exclude)):
            continue
        out.append(resolved)
    return sorted(set(out))


def recorded() -> list[str]:
    """Every path recorded (for a child to hand to its parent)."""
    return sorted(_FILES)
