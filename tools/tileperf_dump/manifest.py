"""The configurations a kernel file defines, for the CMake registration:

    python -m tileperf_dump.manifest [--placeholder MODULE]... [--bare-package PACKAGE]...
        <kernel.py> <out.json>

writes {"source": <path>, "configs": [<name>, ...]} in the file's order. The kernel
file's CONFIGS is the one list of its configurations: CMake registers one
test per name and architecture from this file. A kernel file that cannot be
loaded, or whose CONFIGS is malformed, is an error naming the file (exit 2),
and the line of the kernel's own code it came from. Each ``--placeholder``
module (torch, say) is a placeholder module while the file is imported, and
each ``--bare-package`` (a library's package) is imported without running its
``__init__.py`` (see tileperf_dump.placeholders).
"""

import argparse
import re
import sys
import sysconfig
from pathlib import Path

from tileperf_dump.files import write_json
from tileperf_dump.loading import load_kernel_module
from tileperf_dump.placeholders import (PlaceholderError, covered, derives_from_placeholder,
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
    for name in dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        if is_placeholder(value):
            found.append(f"{name} = {describe(value)}")
        elif derives_from_placeholder(value):
            base = next(c for c in value.__mro__ if "_tileperf_placeholder" in c.__dict__)
            found.append(f"{name} derives from {describe(base._tileperf_placeholder)}")
    return found


def raised_at(error: BaseException, bare: list[str] = ()) -> str:
    """' (raised at mylib/kernels/gemm.py:12)': the last frame of the
    project's own code or of the library's; when the line uses placeholders
    and the error is not a placeholder's own, which ones."""
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tileperf_dump.manifest")
    parser.add_argument("--placeholder", action="append", default=[], metavar="MODULE")
    parser.add_argument("--bare-package", action="append", default=[], metavar="PACKAGE")
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    source, out = args.source, args.out
    try:
        module = load_kernel_module(source, args.placeholder, args.bare_package)
    except Exception as e:  # the kernel file's own error, reported with its name
        text = str(e) if str(source) in str(e) else f"{source}: {type(e).__name__}: {e}"
        print(text + raised_at(e, args.bare_package), file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {"source": str(source.resolve()), "configs": list(module.CONFIGS)}
    write_json(out, record, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
