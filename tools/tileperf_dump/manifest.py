"""The configurations a kernel file defines, for the CMake registration:

    python -m tileperf_dump.manifest <kernel.py> <out.json>

writes {"source": <path>, "configs": [<name>, ...]} in the file's order. The kernel
file's CONFIGS is the one list of its configurations: CMake registers one
test per name and architecture from this file. A kernel file that cannot be
loaded, or whose CONFIGS is malformed, is an error naming the file (exit 2).
"""

import json
import sys
from pathlib import Path

from tileperf_dump import _write_atomic, load_kernel_module


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m tileperf_dump.manifest <kernel.py> <out.json>", file=sys.stderr)
        return 2
    source, out = Path(argv[0]), Path(argv[1])
    try:
        module = load_kernel_module(source)
    except Exception as e:  # the kernel file's own error, reported with its name
        text = str(e) if str(source) in str(e) else f"{source}: {type(e).__name__}: {e}"
        print(text, file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {"source": str(source.resolve()), "configs": list(module.CONFIGS)}
    _write_atomic(out, (json.dumps(record, indent=2) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
