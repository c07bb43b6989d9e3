#!/usr/bin/env python3
"""The launch model's estimate (cost.time_ns) of every timed row, made by a
given tileperf binary from the tool output the gate kept beside each cubin:
the record of what a model predicted, kept with the timing it is judged
against. Run it with the binary of the commit the edits were timed at to
keep its predictions before any later change to the model.

    python3 tools/bench/predict_rows.py TIMING_JSON --tileperf BIN [--build build] --out FILE

Writes {"tileperf": ..., "rows": {id: {"base": ns, "edit": ns}}} (a
configuration row has "base" only).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools"))
from tileperf_dump import paths  # noqa: E402


def estimate(tileperf: str, metrics_path: Path) -> int | None:
    """cost.time_ns from the files beside <config>.<arch>.metrics.json (its .cubin,
    .sass, .res-usage.txt, .remarks.yaml, .tileir) and the dump record."""
    folder = metrics_path.parent
    _, config, arch = paths.parse_name("work", metrics_path.name)
    beside = {kind: str(paths.in_kernel_dir(folder, kind, config, arch))
              for kind in ("cubin", "sass", "res_usage", "remarks", "tileir")}
    argv = [tileperf, "extract", "--cubin", beside["cubin"], "--sass", beside["sass"],
            "--res-usage", beside["res_usage"], "--remarks", beside["remarks"],
            "--tileir", beside["tileir"],
            "--dump-info", str(paths.in_kernel_dir(folder, "dump_record", config)), "--arch", arch]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{metrics_path}: {r.stderr.strip()}", file=sys.stderr)
        return None
    return json.loads(r.stdout)["metrics"].get("cost.time_ns")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timing", type=Path)
    ap.add_argument("--tileperf", required=True)
    ap.add_argument("--build", type=Path, default=TOP / "build")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    timing = json.loads(args.timing.read_text())
    version = subprocess.run([args.tileperf, "--version"], capture_output=True, text=True).stdout.strip()
    rows = {}
    for row in timing["rows"]:
        if "error" in row:
            continue
        out = {}
        for side in ("base", "edit"):
            if side in row:
                value = estimate(args.tileperf, TOP / row[side]["gate_metrics"])
                if value is not None:
                    out[side] = value
        rows[row["id"]] = out
    doc = {"format": "tileperf-row-predictions/1", "tileperf": version,
           "timing": str(args.timing), "rows": rows}
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
