#!/usr/bin/env python3
"""A stand-in for tileiras on a GPU machine where the compiler cannot be
installed, so that cuTile can launch kernels there for the correctness tests.

It never compiles. It serves cubins that the real tileiras compiled on
another machine from the same bytecode, found by the bytecode's SHA-256 and
the target architecture in TILEPERF_STUB_STORE (<sha256>.<arch>.cubin). A
bytecode it has no cubin for is copied to TILEPERF_STUB_RECORD (with the
arguments, as <sha256>.<arch>.tileirbc and .json) and the call fails, so that
tools/gpu/precompile.sh can compile it for the next run.

--version repeats the real compiler's banner, saved in the store as
version.txt. cuTile's probe for the newest bytecode version (an empty module,
file name probe*) succeeds.
"""

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path


def option(args, name):
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def main(args):
    store = Path(os.environ.get("TILEPERF_STUB_STORE", ""))
    if "--version" in args:
        sys.stdout.write((store / "version.txt").read_text())
        return 0
    source = Path(args[0])
    output = Path(option(args, "-o") or option(args, "--output-file"))
    arch = option(args, "--gpu-name") or option(args, "--arch")
    if source.name.startswith("probe"):
        output.write_bytes(b"")
        return 0
    data = source.read_bytes()
    key = f"{hashlib.sha256(data).hexdigest()}.{arch}"
    cubin = store / f"{key}.cubin"
    if cubin.exists():
        shutil.copyfile(cubin, output)
        return 0
    record = os.environ.get("TILEPERF_STUB_RECORD")
    if record:
        Path(record).mkdir(parents=True, exist_ok=True)
        (Path(record) / f"{key}.tileirbc").write_bytes(data)
        flags = [a for a in args[1:] if not a.startswith("--remark")]
        flags = [a for i, a in enumerate(flags) if a != "-o" and (i == 0 or flags[i - 1] != "-o")]
        (Path(record) / f"{key}.json").write_text(json.dumps({"arch": arch, "flags": flags}))
    sys.stderr.write(f"error: no precompiled cubin for {source.name} ({key}); recorded it\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
