#!/usr/bin/env python3
"""Writes the runtime change each validation edit was measured at into its
patch's `measured:` line, from a GPU timing (tools/gpu/time_edits.py), so
that its self-test holds the gate to it (fail when 5% slower or more, not
regress when 10% faster or more).

    python3 tools/bench/record_measured.py [TIMING_JSON]

Only the `measured:` line changes; each file is replaced whole.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    timing = Path(argv[0]) if argv else TOP / "tools/bench/mutant_runtime.device.json"
    doc = json.loads(timing.read_text())
    changes: dict[str, list[str]] = {}
    for row in doc["rows"]:
        if row.get("kind") != "validation" or "error" in row:
            continue
        delta = 100 * (row["edit"]["median_ms"] / row["base"]["median_ms"] - 1)
        changes.setdefault(row["patch"], []).append(f"{row['config']}={delta:+.1f}%")
    for patch in sorted((TOP / "tests/validation").glob("*.patch")):
        measured = changes.get(patch.stem)
        if not measured:
            print(f"{patch.name}: not in {timing.name}: left as it is")
            continue
        text = patch.read_text()
        new, n = re.subn(r"^measured:.*$", "measured: " + " ".join(measured), text, count=1, flags=re.M)
        if n != 1:
            raise SystemExit(f"{patch}: no 'measured:' line")
        fd, tmp = tempfile.mkstemp(dir=patch.parent, prefix=patch.name + ".tmp.")
        with os.fdopen(fd, "w") as f:
            f.write(new)
        os.replace(tmp, patch)
        print(f"{patch.name}: measured: {' '.join(measured)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
