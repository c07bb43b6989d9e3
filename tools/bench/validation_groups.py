#!/usr/bin/env python3
"""Scores the launch estimate over the groups of validation rows that one
timing of the whole validation corpus holds, from the report that
tools/bench/runtime_vs_static.py wrote (its .json):

- the rows of the first timing (the validation rows of
  tools/bench/mutant_runtime.device.json), which the model was adjusted to
  once: fitted;
- the other validation rows without a set (tools/bench/validation_runtime.predictions.json
  recorded their estimates before their first timing): unfitted;
- each timing set (a patch header's 'set:', such as `unfitted`): unfitted;
- all unfitted rows together, and all rows.

For each group, as runtime_vs_static.py counts them: Spearman's rho of the
estimate's slowdown with the measured one, the rows whose factor is within
1.5x and 2x, the rows 10% faster or more that the gate judged regressed and
those 5% slower or more that it passed, and the same two by the estimate's
own verdict (past the gate's tolerance or not); once with the committed predictions
(the estimates recorded before the timing), once with the model now (the
build tree's metrics).

    python3 tools/bench/validation_groups.py REPORT.json --predictions P.json [--predictions P2.json]
        [--first-timing tools/bench/mutant_runtime.device.json] [--out OUT.md]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import runtime_vs_static as rvs  # noqa: E402


def groups(rows: list[dict], first: set[str]) -> list[tuple[str, list[dict]]]:
    edits = [r for r in rows if r.get("kind") == "validation"]
    fitted = [r for r in edits if not r.get("set") and r["id"] in first]
    no_set = [r for r in edits if not r.get("set") and r["id"] not in first]
    out = [("validation rows of the first timing (the model adjusted once to them: fitted)", fitted),
           ("the other validation rows without a set (unfitted)", no_set)]
    unfitted = list(no_set)
    for name in sorted({r["set"] for r in edits if r.get("set")}):
        in_set = [r for r in edits if r.get("set") == name]
        out.append((f"set `{name}` (unfitted)", in_set))
        unfitted += in_set
    out.append(("all unfitted rows", unfitted))
    out.append(("all validation rows", edits))
    return out


def cell(ids: list[str]) -> str:
    return f"{len(ids)}: " + ", ".join(ids) if ids else "0"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", type=Path, help="runtime_vs_static.py's .json")
    ap.add_argument("--predictions", type=Path, action="append", required=True)
    ap.add_argument("--first-timing", type=Path, default=HERE / "mutant_runtime.device.json")
    ap.add_argument("--out", type=Path, default=None, help="writes the table there too")
    args = ap.parse_args(argv)

    report = json.loads(args.report.read_text())
    first = {r["id"] for r in json.loads(args.first_timing.read_text())["rows"]
             if r.get("kind") == "validation"}
    predictions = rvs.merged_predictions(args.predictions)["rows"]
    words = ["python3", "tools/bench/validation_groups.py", rvs.rel(args.report)]
    for p in args.predictions:
        words += ["--predictions", rvs.rel(p)]
    if args.first_timing != HERE / "mutant_runtime.device.json":
        words += ["--first-timing", rvs.rel(args.first_timing)]
    if args.out:
        words += ["--out", rvs.rel(args.out)]

    gpu = (report.get("provenance") or {}).get("nvidia_smi") or (report.get("provenance") or {}).get("gpu")
    lines = ["# The launch estimate over the groups of validation rows", "",
             f"- timing: {report.get('timing_file')} ({report.get('timing_created')}), on {gpu}",
             f"- report: {rvs.rel(args.report)}; predictions: "
             + ", ".join(f"`{rvs.rel(p)}`" for p in args.predictions),
             f"- regenerate: `{shlex.join(words)}`", "",
             "| group | estimate | rows | Spearman ρ | within 1.5x | within 2x "
             "| ≥10% faster, gated regressed | ≥5% slower, passed "
             "| ≥10% faster, the estimate regressed | ≥5% slower, the estimate passed |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for name, rows in groups(report["rows"], first):
        for label, preds in (("committed before the timing", predictions), ("the model now", None)):
            a = rvs.accuracy(rows, preds)
            n = a["n"]
            pct = (lambda k: f"{k} ({100 * k / n:.0f}%)") if n else (lambda k: str(k))
            lines.append(f"| {name} | {label} | {n} | {'n/a' if a['rho'] is None else format(a['rho'], '+.3f')} | {pct(a['within_1_5'])} "
                         f"| {pct(a['within_2'])} | {cell(a['faster_regressed'])} "
                         f"| {cell(a['slower_passed'])} | {cell(a['estimate_faster_regressed'])} "
                         f"| {cell(a['estimate_slower_passed'])} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
