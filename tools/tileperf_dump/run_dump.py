"""The dump step with a stamp: exports a kernel file's configurations through
pytest (``dump_driver.py``) unless nothing that decides the bytecode changed
since the last successful export into the same folder.

    python tools/tileperf_dump/run_dump.py --stamp OUT/dump.stamp.json -- <pytest arguments>

The stamp records, after a run that passed: the SHA-256 of every Python file
the run imported from outside the interpreter's own and installed packages
(the kernel file, the helpers it imports, the dump driver and tileperf_dump)
and of every other file it read, wherever it is (a kernel inventory's
definitions and workloads, a file a configuration names:
tileperf_dump.reads), the version of every installed distribution it
imported (the library's release, cuTile's, torch's), the pytest arguments
(kernel file, configurations, output folder, bytecode version, placeholder
modules), PYTHONPATH and the interpreter, and the SHA-256 of every file it
wrote. When all of these are
unchanged the export is skipped, in a fraction of the time: this script
imports neither cuTile nor pytest before it knows it has work to do. Delete
the stamp (or the output) to force an export.

    python tools/tileperf_dump/run_dump.py --batch BATCH.json [--jobs N] [--run-file RUN.json]

exports, ahead of the per-file dump tests, every kernel file of a batch
whose stamp is not current: the ``dump_batch`` entries of each registration
record the batch file names (the CMake API writes it at configure time: the
dump tests that share one Python and PYTHONPATH). pytest and cuTile are imported once;
each file is then exported in a process of its own forked from that one (up
to N at a time), so that files cannot see each other's modules and a crash
takes one file down, not the batch. Each export writes the same stamp its
dump test would; the dump test then finds it current. A file whose export
failed is left to its dump test, which repeats it alone and reports why:
the batch fails only when it cannot run at all (an unreadable batch file).
One stale file (one kernel edited) is exported the same way: the compile
batch waits for every dump test, so a dump test that exported it instead
would only add a Python start of its own. With --run-file, each stamp the
batch found current or exported gets a marker beside it naming the run
(dump.stamp.json.current); the dump test's command
(`tileperf dump`) then ends at once without starting Python.

This file imports the parts of tileperf_dump that import cuTile only once it
knows it has work to do (its paths and file writing import none).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import re
import sys
import sysconfig
import time
from pathlib import Path

from tileperf_dump import paths
from tileperf_dump.files import write_json

STAMP_FORMAT = "tileperf-dump-stamp/2"
BATCH_FORMAT = "tileperf-dump-batch/2"
# Seconds an export waits for another run's export of the same folder.
LOCK_WAIT = 600
EXIT_IO = 10  # tileperf's exit code of an I/O failure


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


def _prefixes(roots) -> tuple[str, ...]:
    """The folders of ``roots`` as path prefixes, as given and resolved."""
    return tuple({str(r).rstrip(os.sep) + os.sep for r in roots} |
                 {os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots})


def _inside(file: str, prefixes: tuple[str, ...]) -> bool:
    """Whether ``file`` lies in a folder of ``prefixes``: by its path as the
    module has it (most do), else resolved."""
    return file.startswith(prefixes) or os.path.realpath(file).startswith(prefixes)


def _project_files() -> list[Path]:
    """Python files imported so far from outside the interpreter's and the
    installed packages' folders: the kernel file, its helpers, tileperf_dump."""
    prefixes = _prefixes(_installed_roots())
    files = set()
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if name and name.endswith(".py") and not _inside(name, prefixes):
            files.add(Path(name).resolve())
    return sorted(files)


def _written_files(out_dir: Path, before: dict[Path, int]) -> list[Path]:
    """Bytecode and records the run wrote (newer than before it)."""
    return [p for p in paths.dump_outputs(out_dir) if before.get(p) != p.stat().st_mtime_ns]


def _snapshot(out_dir: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in paths.dump_outputs(out_dir)}


def _distributions() -> dict[str, str]:
    """The installed distributions (name: version) whose modules the export
    imported from the installed packages' folders: a library's release, and
    cuTile's, torch's and pytest's."""
    from importlib import metadata
    prefixes = _prefixes([sysconfig.get_path(k) for k in ("purelib", "platlib")])
    tops = {name.partition(".")[0] for name, module in list(sys.modules.items())
            if name.partition(".")[0] not in sys.stdlib_module_names
            and _inside(getattr(module, "__file__", None) or "", prefixes)}
    owners = metadata.packages_distributions()
    out = {}
    for top in tops:
        for dist in owners.get(top, []):
            try:
                out[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
    return dict(sorted(out.items()))


def _normal(dist: str) -> str:
    return re.sub(r"[-_.]+", "_", dist).lower()


@functools.lru_cache(maxsize=None)
def _installed_versions() -> dict[str, str]:
    """The installed distributions' versions by normalized name, from their
    dist-info folders' names (cheap: importlib.metadata is not imported);
    the first on sys.path wins, as it does for an import."""
    out: dict[str, str] = {}
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".dist-info"):
                name, _, version = entry[:-len(".dist-info")].partition("-")
                out.setdefault(_normal(name), version)
    return out


def _up_to_date(stamp_path: Path, context: dict) -> tuple[bool, str]:
    try:
        stamp = json.loads(stamp_path.read_text())
    except FileNotFoundError:
        return False, "no stamp"
    except (OSError, ValueError) as e:
        return False, f"unreadable stamp ({e})"
    if not isinstance(stamp, dict) or stamp.get("context") != context:
        return False, "arguments, PYTHONPATH, interpreter or cuda-tile version changed"
    distributions = stamp.get("distributions", {})
    if not isinstance(distributions, dict):
        return False, "stamp without distributions"
    for dist, version in distributions.items():
        installed = _installed_versions().get(_normal(dist))
        if installed != version:
            return False, f"{dist} {version} -> {installed or 'not installed'}"
    for group in ("inputs", "outputs"):
        entries = stamp.get(group)
        if not isinstance(entries, dict) or (group == "outputs" and not entries):
            return False, f"stamp without {group}"
        for name, digest in entries.items():
            if _sha256(Path(name)) != digest:
                return False, f"{name} changed"
    return True, ""


def _write_stamp(stamp_path: Path, context: dict, outputs: list[Path]) -> None:
    """The stamp of an export that passed: besides the context, every project
    file it imported and every data file it read (a kernel inventory's
    definitions and workloads, a file a configuration names; tileperf_dump.reads),
    the installed distributions it imported, and what it wrote."""
    from tileperf_dump import reads
    inputs = set(_project_files()) | set(reads.files(exclude=stamp_path.parent.resolve()))
    record = {
        "context": context,
        "inputs": {str(p): _sha256(p) for p in sorted(inputs)},
        "distributions": _distributions(),
        "outputs": {str(p): _sha256(p) for p in outputs},
    }
    stamp_path.parent.mkdir(parents=True, exist_ok=True)
    write_json(stamp_path, record, indent=2, sort_keys=True)


def _option(pytest_args: list[str], name: str) -> str | None:
    for i, arg in enumerate(pytest_args):
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
        if arg == name and i + 1 < len(pytest_args):
            return pytest_args[i + 1]
    return None


def _lock(out_dir: Path, what: str):
    """An exclusive lock on OUT/dump.lock, so that two runs in one build folder
    never export into it at once; the file, held open, and whether it waited.
    The kernel releases it when this process ends, however it ends."""
    import fcntl
    out_dir.mkdir(parents=True, exist_ok=True)
    path = paths.in_kernel_dir(out_dir, "dump_lock")
    f = open(path, "a+")
    waited = False
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "another process"
            if not waited:
                print(f"run_dump.py: waiting for {path} held by {holder} (another run in this build "
                      f"folder), up to {LOCK_WAIT} s", flush=True)
                waited = True
            if time.monotonic() > deadline:
                print(f"run_dump.py: error: {path}: still held by {holder} after {LOCK_WAIT} s", file=sys.stderr)
                sys.exit(EXIT_IO)
            time.sleep(0.05)
    f.truncate(0)
    f.write(f"pid {os.getpid()}: {what}\n")
    f.flush()
    return f, waited


def _export(stamp: Path, pytest_args: list[str], why: str | None = None, argv: list[str] | None = None) -> int:
    """The dump step of one kernel file: pytest unless the stamp is current
    (`why`: the batch found it stale already, and why). With ``argv`` (the
    step's own arguments), a stale file is exported by the resident export
    process (``tileperf_dump.server``) unless it is off."""
    out = _option(pytest_args, "--tileperf-out")
    if not out:
        print("run_dump.py: error: the pytest arguments give no --tileperf-out", file=sys.stderr)
        return 2
    out_dir = Path(out)
    context = _context(pytest_args)
    lock, waited = _lock(out_dir, f"run_dump.py export into {out_dir}")
    if why is None or waited:  # another run may have exported it meanwhile
        fresh, why = _up_to_date(stamp, context)
        if fresh:
            print(f"dump up to date ({stamp}): nothing that decides the bytecode changed")
            return 0
    if argv is not None:
        lock.close()  # the server's worker takes it
        from tileperf_dump import server
        code = server.delegate("tileperf_dump.run_dump", ["--stale-known", *argv])
        if code is not None:
            return code
        lock, _ = _lock(out_dir, f"run_dump.py export into {out_dir}")
    print(f"dumping: {why}")
    stamp.unlink(missing_ok=True)  # a failed run must leave no stamp that vouches for it
    before = _snapshot(out_dir)
    import pytest
    from tileperf_dump import reads
    reads.watch()
    code = pytest.main(pytest_args)
    if code == 0:
        written = _written_files(out_dir, before)
        if written:
            _write_stamp(stamp, context, written)
    return int(code)


def _leave_own_folder() -> None:
    """Run as a script, this file's folder leads sys.path: keep it off pytest's."""
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(here)]


def _read_batch(path: Path) -> list[dict]:
    """The entries of a batch file's records; exits with a located error when
    the file or one of its records is bad."""
    def bad(file: Path, where: str, what: str):
        print(f"run_dump.py: error: {file}:{where}: {what}", file=sys.stderr)
        sys.exit(2)

    def load(file: Path):
        try:
            return json.loads(file.read_text())
        except OSError as e:
            bad(file, "0", f"cannot read: {e.strerror}")
        except ValueError as e:
            bad(file, str(getattr(e, "lineno", 0)), f"not JSON: {e}")

    batch = load(path)
    if not isinstance(batch, dict) or batch.get("format") != BATCH_FORMAT:
        bad(path, "format", f"expected \"{BATCH_FORMAT}\"")
    records = batch.get("records")
    if not isinstance(records, list) or not all(isinstance(r, str) for r in records):
        bad(path, "records", "expected a list of paths")
    entries = []
    for record_file in map(Path, records):
        record = load(record_file)
        listed = record.get("dump_batch") if isinstance(record, dict) else None
        if not isinstance(listed, list):
            bad(record_file, "dump_batch", "expected a list")
        for i, e in enumerate(listed):
            ok = (isinstance(e, dict) and isinstance(e.get("test"), str) and isinstance(e.get("stamp"), str)
                  and isinstance(e.get("pytest_args"), list)
                  and all(isinstance(a, str) for a in e["pytest_args"]))
            if not ok:
                bad(record_file, f"dump_batch[{i}]",
                    "expected {\"test\": str, \"stamp\": str, \"pytest_args\": [str]}")
        entries += listed
    return entries


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no output)"


def _run_id(run_file: Path | None) -> str | None:
    try:
        return json.loads(run_file.read_text()).get("run") if run_file else None
    except (OSError, ValueError, AttributeError):
        return None


def _marker(stamp: Path) -> Path:
    """The marker beside a kernel's stamp (paths: dump_current)."""
    return paths.in_kernel_dir(stamp.parent, "dump_current")


def _mark_current(stamp: Path, run: str | None) -> None:
    """The marker: this run's batch found the stamp current, so that the
    dump test (`tileperf dump`) need not start Python to find it again."""
    marker = _marker(stamp)
    digest = _sha256(stamp)
    if run is None or digest is None:
        marker.unlink(missing_ok=True)
        return
    write_json(marker, {"run": run, "stamp_sha256": digest})


def _batch(path: Path, jobs: int, run_file: Path | None = None, argv: list[str] = (),
           delegated: bool | None = None) -> int:
    """The dump batch: exports each stale kernel file of the batch, in the
    resident export process (``tileperf_dump.server``) unless it is off or
    this is it (``delegated``)."""
    entries = _read_batch(path)
    run = _run_id(run_file)
    stale = []  # (entry, why its stamp is not current)
    for e in entries:
        args = e["pytest_args"]
        out = _option(args, "--tileperf-out")
        fresh, why = _up_to_date(Path(e["stamp"]), _context(args)) if out else (False, "no --tileperf-out")
        stamp = Path(e["stamp"])
        if fresh:
            _mark_current(stamp, run)
        else:
            _marker(stamp).unlink(missing_ok=True)
            stale.append((e, why))
    print(f"{len(entries)} kernel file(s), {len(entries) - len(stale)} up to date, "
          f"{len(stale)} to export")
    if not stale:
        return 0
    if delegated is None:
        from tileperf_dump import server
        code = server.delegate("tileperf_dump.run_dump", ["--stale-known", *argv])
        if code is not None:
            return code
    _leave_own_folder()
    # What every export imports first, once for all of them.
    import pytest  # noqa: F401
    try:
        from tileperf_dump.export import preload
        preload()
    except Exception:  # noqa: BLE001 - each export then says what is wrong itself
        pass
    import gc
    gc.freeze()  # what is loaded stays: no forked export walks it when it collects
    running: dict[int, tuple[dict, Path, float]] = {}
    failed = 0

    def reap() -> None:
        nonlocal failed
        pid, status = os.wait()
        entry, log, started = running.pop(pid)
        code = os.waitstatus_to_exitcode(status)
        if code == 0:
            print(f"  {entry['test']}: exported in {time.monotonic() - started:.2f} s")
            _mark_current(Path(entry["stamp"]), run)
        else:
            failed += 1
            print(f"  {entry['test']}: failed (exit {code}); the test repeats it alone and "
                  f"reports why. Its output ({log}):\n{_tail(log)}")

    for entry, why in stale:
        while len(running) >= jobs:
            reap()
        stamp = Path(entry["stamp"])
        stamp.parent.mkdir(parents=True, exist_ok=True)
        log = paths.in_kernel_dir(stamp.parent, "dump_batch_log")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                code = _export(stamp, entry["pytest_args"], why)
            except BaseException:  # anything: this process only reports it
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        running[pid] = (entry, log, time.monotonic())
    while running:
        reap()
    print(f"{len(stale) - failed} exported, {failed} left to their own dump test")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="run_dump.py")
    parser.add_argument("--stamp", type=Path)
    parser.add_argument("--batch", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--run-file", type=Path, help="the run record: marks the stamps found current")
    parser.add_argument("--stale-known", action="store_true", help=argparse.SUPPRESS)  # sent to the server
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    if args.batch:
        if args.stamp or pytest_args:
            parser.error("--batch takes no --stamp and no pytest arguments")
        if args.jobs < 1:
            parser.error("--jobs must be at least 1")
        return _batch(args.batch, args.jobs, args.run_file, argv, True if args.stale_known else None)
    if not args.stamp:
        parser.error("give --stamp and pytest arguments, or --batch")
    _leave_own_folder()
    return _export(args.stamp, pytest_args, argv=None if args.stale_known else argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
