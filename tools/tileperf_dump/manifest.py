"""The configurations a kernel file defines, for the CMake registration:

    python -m tileperf_dump.manifest [--placeholder MODULE]... <kernel.py> <out.json>

writes {"source": <path>, "configs": [<name>, ...]} in the file's order. The kernel
file's CONFIGS is the one list of its configurations: CMake registers one
test per name and architecture from this file. A kernel file that cannot be
loaded, or whose CONFIGS is malformed, is an error naming the file (exit 2),
and the line of the kernel's own code it came from. Each ``--placeholder``
module (torch, say) is a placeholder module while the file is imported (see
tileperf_dump.placeholders).
"""

import argparse
import json
import sys
import sysconfig
import traceback
from pathlib import Path

from tileperf_dump import _write_atomic, load_kernel_module


def _raised_at(error: BaseException) -> str:
    """' (raised at mylib/kernels/gemm.py:12)': the last frame of the
    project's own code (not tileperf_dump's, Python's or an installed
    package's)."""
    skip = [Path(__file__).resolve().parent] + [
        Path(sysconfig.get_path(k)).resolve() for k in ("stdlib", "purelib", "platlib")]
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith("<")
              and not any(Path(f.filename).resolve().is_relative_to(s) for s in skip)]
    return f" (raised at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tileperf_dump.manifest")
    parser.add_argument("--placeholder", action="append", default=[], metavar="MODULE")
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    source, out = args.source, args.out
    try:
        module = load_kernel_module(source, args.placeholder)
    except Exception as e:  # the kernel file's own error, reported with its name
        text = str(e) if str(source) in str(e) else f"{source}: {type(e).__name__}: {e}"
        print(text + _raised_at(e), file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {"source": str(source.resolve()), "configs": list(module.CONFIGS)}
    _write_atomic(out, (json.dumps(record, indent=2) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
