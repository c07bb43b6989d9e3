"""What CMake registers for one kernel file, ready-made:

    python -m tileperf_dump.manifest --kernel NAME --work-dir DIR --baseline-dir DIR
        --archs sm_120,sm_90 [--checks-dir DIR] [--bytecode-version V]
        [--placeholder MODULE]... [--bare-package PACKAGE]... <kernel.py>

imports the kernel file, and writes into DIR/NAME/ (``tileperf_dump.paths``)
``configs.json``, the record of the registration (the source, the
configurations of CONFIGS in the file's order, the first sentence of the
file's docstring, one entry per perf test with its files, the policy folder
of --checks-dir, and the entries of the dump and compile batches, which the
batch steps read from it), and ``registration.cmake``, the same facts as
CMake variables, whose path it prints. The kernel file's CONFIGS is the one
list of its configurations: CMake registers one test per name and
architecture from these files. A kernel file that cannot be loaded, or whose
CONFIGS is malformed, is an error naming the file (exit 2), and the line of
the kernel's own code it came from, with the traceback. So is an import
that calls ``sys.exit`` or ``os._exit``, and one that has not returned
after ``--timeout`` seconds (where it is then); one that crashes the
interpreter leaves Python's traceback of the crash (faulthandler), and CMake
names the file (cmake/TileperfManifest.cmake). Each ``--placeholder``
module (torch, say) is a placeholder module while the file is imported, and each
``--bare-package`` (a library's package) is imported without running its
``__init__.py`` (see tileperf_dump.placeholders).
"""

import argparse
import faulthandler
import os
import re
import sys
import sysconfig
import threading
import traceback
import types
from pathlib import Path

from tileperf_dump import paths
from tileperf_dump.cmake import cmake_checks, cmake_set, dump_args
from tileperf_dump.defaults import BYTECODE_VERSION
from tileperf_dump.files import write_atomic, write_json
from tileperf_dump.guards import ProcessExit, exits_raised
from tileperf_dump.loading import load_kernel_module
from tileperf_dump.placeholders import (BarePackageInitError, PlaceholderError, covered, derives_from_placeholder,
                                        describe, is_placeholder)

def _library_folders(bare: list[str]) -> list[Path]:
    """The folders of the bare packages: the library under watch, even where
    it is installed among the other packages."""
    folders = []
    for name in bare:
        module = sys.modules.get(name)
        folders += [Path(p).resolve() for p in getattr(module, "__path__", [])]
    return folders


def _project_frames(error: BaseException, bare: list[str]) -> list:
    """(frame, line) of each traceback entry in the project's own code or the
    library's (not tileperf_dump's, Python's or another installed package's)."""
    skip = [Path(__file__).resolve().parent] + [
        Path(sysconfig.get_path(k)).resolve() for k in ("stdlib", "purelib", "platlib")]
    keep = _library_folders(bare)
    frames = []
    tb = error.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        path = Path(name).resolve() if not name.startswith("<") else None
        if path is not None and (any(path.is_relative_to(k) for k in keep)
                                 or not any(path.is_relative_to(s) for s in skip)):
            frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _placeholders_on_line(frame, lineno: int) -> list[str]:
    """'F = torch.autograd.Function (a placeholder: ...)' for each name on the
    line that is a placeholder or a class derived from one."""
    import linecache
    text = linecache.getline(frame.f_code.co_filename, lineno)
    found = []
    for name in dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", text)):
        head, *attrs = name.split(".")
        value = frame.f_locals.get(head, frame.f_globals.get(head))
        for attr in attrs:  # torch.ops.name: through modules and placeholders
            value = getattr(value, attr, None) if isinstance(value, types.ModuleType) or \
                is_placeholder(value) else None
        if is_placeholder(value):
            found.append(f"{name} = {describe(value)}" if "." not in name else describe(value))
        elif derives_from_placeholder(value):
            base = next(c for c in value.__mro__ if "_tileperf_placeholder" in c.__dict__)
            found.append(f"{name} derives from {describe(base._tileperf_placeholder)}")
    return found


def raised_at(error: BaseException, bare: list[str] = ()) -> str:
    """' (raised at mylib/kernels/gemm.py:12)': the last frame of the
    project's own code or of the library's; when the line uses placeholders
    and the error is not a placeholder's own, which ones. Of a bare
    package's ``__init__.py`` that raised, where its first cause was."""
    if isinstance(error, BarePackageInitError) and error.__cause__ is not None:
        return raised_at(error.__cause__, bare)
    frames = _project_frames(error, list(bare))
    if not frames:
        return ""
    frame, lineno = frames[-1]
    where = f" (raised at {frame.f_code.co_filename}:{lineno})"
    used = [] if isinstance(error, PlaceholderError) else _placeholders_on_line(frame, lineno)
    if used:
        where += f"; a placeholder is the likely cause: {'; '.join(used)}"
    package = covered(getattr(error, "name", None) or "", list(bare))
    if isinstance(error, ImportError) and package:
        where += f"; {package} is a bare package: an __init__.py that defines what is imported is not run"
    return where


def summary(module) -> str:
    """The first sentence of the module's docstring (of its first paragraph,
    when that has no sentence end), on one line."""
    paragraph = re.split(r"\n[ \t]*\n", (module.__doc__ or "").strip(), maxsplit=1)[0]
    text = " ".join(paragraph.split())
    match = re.match(r"([^.]*\.) ", text)
    return match.group(1) if match else text


def registration(args, module) -> dict:
    """The record of what CMake registers for the kernel file."""
    kernel, work = args.kernel, args.work_dir
    folder = work / kernel
    configs = list(module.CONFIGS)
    stamp = folder / paths.file_name("dump_stamp")
    dump = {"test": f"dump.{kernel}", "stamp": str(stamp),
            "pytest_args": dump_args(args.source, folder, args.bytecode_version,
                                     placeholders=args.placeholder, bare=args.bare_package,
                                     archs=args.archs)}
    tests = [{"test": f"perf.{kernel}.{c}.{a}", "config": c, "arch": a,
              "bytecode": str(work / paths.relative("bytecode", kernel, c)),
              "baseline": str(args.baseline_dir / paths.file_name("baseline", c, a))}
             for c in configs for a in args.archs]
    compile_batch = [{"test": t["test"], "arch": t["arch"], "bytecode": t["bytecode"],
                      "dump_info": str(work / paths.relative("dump_record", kernel, t["config"]))}
                     for t in tests]
    record = {"source": str(args.source.resolve()), "kernel": kernel, "configs": configs,
              "summary": summary(module), "archs": args.archs, "tests": tests,
              "dump_batch": [dump], "compile_batch": compile_batch,
              # The Python the dump step runs, for `tileperf investigate`'s exports.
              "python": {"executable": sys.executable, "path": os.environ.get("PYTHONPATH", "")}}
    if args.checks_dir:  # the kernel's policies, when not the run's
        record["checks"] = str(args.checks_dir)
    return record


def cmake_text(record: dict, manifest: Path) -> str:
    """``registration.cmake``: the record as the variables tileperf_add_kernel_tests reads."""
    dump = record["dump_batch"][0]
    text = (f"# Written by tileperf_dump.manifest from {record['source']}.\n"
            + cmake_set("tileperf_manifest", manifest)
            + cmake_set("tileperf_work_dir", Path(manifest).parent)
            + cmake_set("tileperf_configs", *record["configs"])
            + cmake_set("tileperf_summary", record["summary"])
            + cmake_set("tileperf_dump_stamp", dump["stamp"])
            + cmake_set("tileperf_dump_args", *dump["pytest_args"])
            + cmake_set("tileperf_tests", *(t["test"] for t in record["tests"])))
    return text + cmake_checks("tileperf_test_", record["tests"])


def _arguments(argv: list[str]):
    parser = argparse.ArgumentParser(prog="python -m tileperf_dump.manifest")
    parser.add_argument("--placeholder", action="append", default=[], metavar="MODULE")
    parser.add_argument("--bare-package", action="append", default=[], metavar="PACKAGE")
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--baseline-dir", type=Path, required=True)
    parser.add_argument("--checks-dir", type=Path, default=None)
    parser.add_argument("--archs", type=lambda s: [a for a in s.split(",") if a], required=True)
    parser.add_argument("--bytecode-version", default=BYTECODE_VERSION)
    parser.add_argument("--timeout", type=float, default=300, metavar="SECONDS",
                        help="how long the kernel file's import may take")
    parser.add_argument("source", type=Path)
    return parser.parse_args(argv)


def _watchdog(source: Path, seconds: float, real_exit) -> threading.Event:
    """After ``seconds`` without the event set, says where the import is
    (the kernel file's line, and the stack) and ends the process (exit 2)."""
    done = threading.Event()
    main = threading.main_thread().ident

    def watch():
        if done.wait(seconds):
            return
        frame = sys._current_frames().get(main)
        stack = traceback.format_stack(frame) if frame is not None else []
        where = next((f"{f.filename}:{f.lineno}" for f in reversed(traceback.extract_stack(frame))
                      if Path(f.filename).resolve() == source.resolve()), str(source)) if frame else str(source)
        sys.stderr.write(f"{where}: the import of {source} did not end within {seconds:g} s "
                         f"(TILEPERF_MANIFEST_TIMEOUT); where it was:\n{''.join(stack)}")
        sys.stderr.flush()
        real_exit(2)
    threading.Thread(target=watch, daemon=True).start()
    return done


def _load(args):
    """The kernel module, its import guarded: a call of ``os._exit`` raises
    ProcessExit, a fatal signal prints Python's traceback, and the watchdog
    ends an import that does not return."""
    faulthandler.enable()
    done = _watchdog(args.source, args.timeout, os._exit)
    try:
        with exits_raised():
            return load_kernel_module(args.source, args.placeholder, args.bare_package)
    finally:
        done.set()


def main(argv: list[str]) -> int:
    """The manifest step; in the resident export process when it is up and
    taking requests (``tileperf_dump.server``), else here. A kernel file
    whose import brought in torch (seconds) starts that process for the
    files that follow."""
    from tileperf_dump import server
    if server.running():
        code = server.delegate("tileperf_dump.manifest", argv)
        if code is not None:
            return code
    args = _arguments(argv)
    source = args.source
    try:
        paths.check_name("kernel", args.kernel)
        module = _load(args)
    except (Exception, SystemExit, ProcessExit) as e:  # the kernel file's own error, reported with its name
        if isinstance(e, SystemExit):
            text = f"{source}: the import called sys.exit({e.code!r})"
        else:
            text = str(e) if str(source) in str(e) else f"{source}: {type(e).__name__}: {e}"
        print(text + raised_at(e, args.bare_package), file=sys.stderr)
        print("".join(traceback.format_exception(e)), file=sys.stderr, end="")
        return 2
    record = registration(args, module)
    folder = args.work_dir / args.kernel
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / paths.file_name("configs")
    write_json(manifest, record, indent=2)
    cmake = folder / paths.file_name("registration")
    write_atomic(cmake, cmake_text(record, manifest).encode())
    print(cmake)
    if "torch" in sys.modules:
        server.start()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
