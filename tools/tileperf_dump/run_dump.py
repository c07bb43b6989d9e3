"""The dump step with a stamp: exports a kernel file's configurations through
pytest (``dump_driver.py``) unless nothing that decides the bytecode changed
since the last successful export into the same folder.

    python tools/tileperf_dump/run_dump.py --stamp OUT/dump.stamp.json -- <pytest arguments>

The stamp records, after a run that passed: the SHA-256 of every Python file
the run imported from outside the interpreter's own and installed packages
(the kernel file, the helpers it imports, the dump driver and tileperf_dump),
the cuda-tile version, the pytest arguments (kernel file, configurations,
output folder, bytecode version, placeholder modules), PYTHONPATH and the
interpreter, and the SHA-256 of every file it wrote. When all of these are
unchanged the export is skipped, in a fraction of the time: this script
imports neither cuTile nor pytest before it knows it has work to do. Delete
the stamp (or the output) to force an export.

This file must not import tileperf_dump: that package imports cuTile.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import sysconfig
import tempfile
from pathlib import Path

STAMP_FORMAT = "tileperf-dump-stamp/1"


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _cuda_tile_version() -> str:
    """The installed cuda-tile's version, from its dist-info folder's name
    (importlib.metadata would take most of an up-to-date run's time)."""
    for folder in sys.path:
        found = sorted(Path(folder or ".").glob("cuda_tile-*.dist-info"))
        if found:
            return found[0].name[len("cuda_tile-"):-len(".dist-info")]
    return "not installed"


def _context(pytest_args: list[str]) -> dict:
    """What decides the export besides the files: compared as a whole."""
    return {
        "format": STAMP_FORMAT,
        "pytest_args": pytest_args,
        "pythonpath": os.environ.get("PYTHONPATH", ""),
        "python": sys.executable,
        "cuda_tile": _cuda_tile_version(),
    }


def _installed_roots() -> list[Path]:
    roots = {sysconfig.get_path(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return [Path(r).resolve() for r in roots if r]


def _project_files() -> list[Path]:
    """Python files imported so far from outside the interpreter's and the
    installed packages' folders: the kernel file, its helpers, tileperf_dump."""
    roots = _installed_roots()
    files = set()
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if not name or not name.endswith(".py"):
            continue
        path = Path(name).resolve()
        if not any(path.is_relative_to(r) for r in roots):
            files.add(path)
    return sorted(files)


def _written_files(out_dir: Path, before: dict[Path, int]) -> list[Path]:
    """Bytecode and records the run wrote (newer than before it)."""
    written = []
    for path in sorted(out_dir.glob("*.tileirbc")) + sorted(out_dir.glob("*.tileirbc.json")):
        mtime = path.stat().st_mtime_ns
        if before.get(path) != mtime:
            written.append(path)
    return written


def _snapshot(out_dir: Path) -> dict[Path, int]:
    if not out_dir.is_dir():
        return {}
    return {p: p.stat().st_mtime_ns for p in out_dir.glob("*.tileirbc*")}


def _up_to_date(stamp_path: Path, context: dict) -> tuple[bool, str]:
    try:
        stamp = json.loads(stamp_path.read_text())
    except FileNotFoundError:
        return False, "no stamp"
    except (OSError, ValueError) as e:
        return False, f"unreadable stamp ({e})"
    if not isinstance(stamp, dict) or stamp.get("context") != context:
        return False, "arguments, PYTHONPATH, interpreter or cuda-tile version changed"
    for group in ("inputs", "outputs"):
        entries = stamp.get(group)
        if not isinstance(entries, dict) or (group == "outputs" and not entries):
            return False, f"stamp without {group}"
        for name, digest in entries.items():
            if _sha256(Path(name)) != digest:
                return False, f"{name} changed"
    return True, ""


def _write_stamp(stamp_path: Path, context: dict, outputs: list[Path]) -> None:
    record = {
        "context": context,
        "inputs": {str(p): _sha256(p) for p in _project_files()},
        "outputs": {str(p): _sha256(p) for p in outputs},
    }
    stamp_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=stamp_path.parent, prefix=stamp_path.name + ".tmp.")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(record, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, stamp_path)


def _option(pytest_args: list[str], name: str) -> str | None:
    for i, arg in enumerate(pytest_args):
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
        if arg == name and i + 1 < len(pytest_args):
            return pytest_args[i + 1]
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="run_dump.py")
    parser.add_argument("--stamp", type=Path, required=True)
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    out = _option(pytest_args, "--tileperf-out")
    if not out:
        print("run_dump.py: error: the pytest arguments give no --tileperf-out", file=sys.stderr)
        return 2
    out_dir = Path(out)
    context = _context(pytest_args)
    fresh, why = _up_to_date(args.stamp, context)
    if fresh:
        print(f"dump up to date ({args.stamp}): nothing that decides the bytecode changed")
        return 0
    print(f"dumping: {why}")
    # Run as a script, this file's folder leads sys.path: keep it off pytest's.
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(here)]
    args.stamp.unlink(missing_ok=True)  # a failed run must leave no stamp that vouches for it
    before = _snapshot(out_dir)
    import pytest
    code = pytest.main(pytest_args)
    if code == 0:
        written = _written_files(out_dir, before)
        if written:
            _write_stamp(args.stamp, context, written)
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
