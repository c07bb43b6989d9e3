"""The batch lists of a configure run, from the records the registrations
wrote (the kernels' ``configs.json``, the self-tests' edit records):

    python -m tileperf_dump.batches [--dump OUT RECORD...]... [--compile OUT RECORD...]

writes each OUT (``tileperf-dump-batch/1`` for ``--dump``, which
``run_dump.py --batch`` reads; ``tileperf-compile-batch/1`` for
``--compile``, which ``tileperf batch`` reads) with the ``dump_batch`` or
``compile_batch`` entries of its RECORDs, in order. A record that cannot be
read is an error naming it (exit 2). Imports no cuTile.
"""

import argparse
import json
import sys
from pathlib import Path

from tileperf_dump.files import write_json

FORMATS = {"dump": ("tileperf-dump-batch/1", "dump_batch"),
           "compile": ("tileperf-compile-batch/1", "compile_batch")}


def entries(records: list[str], key: str) -> list[dict]:
    out = []
    for record in records:
        out += json.loads(Path(record).read_text())[key]
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tileperf_dump.batches")
    for kind in FORMATS:
        parser.add_argument(f"--{kind}", nargs="+", action="append", default=[],
                            metavar=("OUT", "RECORD"))
    args = parser.parse_args(argv)
    for kind, (format_name, key) in FORMATS.items():
        for out, *records in getattr(args, kind):
            try:
                listed = entries(records, key)
            except (OSError, ValueError, KeyError) as e:
                print(f"tileperf: error: {out}: cannot read the batch entries: {e}", file=sys.stderr)
                return 2
            write_json(Path(out), {"format": format_name, "entries": listed}, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
