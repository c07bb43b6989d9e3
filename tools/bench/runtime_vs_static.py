#!/usr/bin/env python3
"""Joins the GPU timing of the edit corpus (tools/gpu/time_edits.py) with the
gate's static metrics of the same cubins, and asks how well each static
metric ranks the edits by their runtime cost.

    python3 tools/bench/runtime_vs_static.py [TIMING_JSON] [--build build]
        [--metrics sass.instructions,loop.main.ii,loop.all.ii,cost.launch] [--out tools/bench/mutant_runtime]

One row per edit and configuration: the runtime of the base and the edited
kernel (medians, ms), the runtime delta (%), and for each static metric the
base and edited values from the gate's metrics files in the build tree
(``build/tileperf/<kernel>/<config>.<arch>.metrics.json`` and
``build/tileperf-selftest/<edit>/<config>.<arch>.metrics.json``) and their
delta (%). A metric absent from a file is reported as missing. The static
side counts only when the cubin beside the metrics file is the one that was
timed (same SHA-256). No-op edits are the controls: their runtime deltas
show the noise. For each metric, the Spearman rank correlation between its
delta and the runtime delta over the mutant rows (ties get average ranks;
an infinite percentage, a metric going up from 0, ranks above every finite
one). Writes <out>.md and <out>.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import shlex
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "tools"))
from tileperf_dump import paths  # noqa: E402
DEFAULT_METRICS = ("cost.time_ns", "sass.instructions", "loop.main.ii", "loop.all.ii", "cost.launch")
ESTIMATE = "cost.time_ns"
# The gate's tolerance on the estimate (checks/default.json): a tuning
# change is regressed past it.
ESTIMATE_TOLERANCE_PCT = 2.0
DEFAULT_TIMING = TOP / "tools/bench/mutant_runtime.device.json"
DEFAULT_OUT = TOP / "tools/bench/mutant_runtime"


# ---------------------------------------------------------------------------
# Statistics


def average_ranks(values):
    """Ranks 1..n of the values, ties sharing the average of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def pearson(x, y):
    n = len(x)
    if n < 2:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(x, y):
    """Spearman's rho: Pearson's correlation of the average ranks. None when
    there are fewer than 3 pairs or one side has no spread."""
    if len(x) != len(y):
        raise ValueError("spearman: sequences of different lengths")
    if len(x) < 3:
        return None
    return pearson(average_ranks(list(x)), average_ranks(list(y)))


def delta_pct(base, edit):
    """(edit - base) / base in percent; 0 when both are 0, +-inf from 0."""
    if base == 0:
        return 0.0 if edit == 0 else math.copysign(math.inf, edit)
    return 100.0 * (edit - base) / abs(base)


# ---------------------------------------------------------------------------
# The join


def sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def metrics_paths(row: dict, build: Path) -> dict[str, tuple[Path, Path]]:
    arch = row.get("arch") or "sm_90"
    base_dir = build / "tileperf" / row["kernel"]
    edit_dir = build / "tileperf-selftest" / row["patch"]
    return {
        side: (paths.in_kernel_dir(folder, "metrics", row["config"], arch),
               paths.in_kernel_dir(folder, "cubin", row["config"], arch))
        for side, folder in (("base", base_dir), ("edit", edit_dir))
    }


def load_metrics(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text()).get("metrics", {})
    except (OSError, ValueError):
        return None


def join_config(row: dict, build: Path) -> dict:
    """A configuration timed alone: its measured time beside the estimate."""
    out = {k: row.get(k) for k in ("id", "kind", "kernel", "config")}
    if "error" in row:
        out["error"] = row["error"]
        return out
    arch = row.get("arch") or "sm_90"
    values = load_metrics(build / "tileperf" / paths.relative("metrics", row["kernel"], row["config"], arch)) or {}
    out["measured_us"] = row["base"]["median_ms"] * 1e3
    out["predicted_us"] = values[ESTIMATE] / 1e3 if ESTIMATE in values else None
    out["limit"] = next((k[len("cost.limit."):] for k in values if k.startswith("cost.limit.")), None)
    out["blocks_per_sm"] = values.get("launch.blocks_per_sm")
    out["dram_pct"] = values.get("cost.dram_pct")
    return out


def gate_verdict(row: dict, build: Path) -> dict | None:
    """The state the edit's self-test check ended in, from its result file."""
    arch = row.get("arch") or "sm_90"
    path = paths.in_kernel_dir(build / "tileperf-selftest" / row["patch"], "result", row["config"], arch)
    try:
        r = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return {"state": r.get("state"), "tuning": bool(r.get("tuning"))}


def join_row(row: dict, build: Path, metrics: list[str]) -> dict:
    """One edit x configuration: runtime from the timing row, static values
    from the build tree, and whether the static side is the timed cubin."""
    if row.get("kind") == "config":
        return join_config(row, build)
    out = {k: row.get(k) for k in ("id", "patch", "kind", "kernel", "config")}
    if row.get("set"):
        out["set"] = row["set"]
    out["gate"] = gate_verdict(row, build)
    if "error" in row:
        out["runtime"] = None
        out["error"] = row["error"]
    else:
        out["runtime"] = {
            "base_ms": row["base"]["median_ms"], "edit_ms": row["edit"]["median_ms"],
            "delta_pct": delta_pct(row["base"]["median_ms"], row["edit"]["median_ms"]),
            "pair_ratio_p25": row.get("pair_ratio_p25"),
            "pair_ratio_p75": row.get("pair_ratio_p75"),
            "n": row["base"]["n"],
        }
    if row.get("assumption_violations"):
        out["assumption_violations"] = row["assumption_violations"]
    paths = metrics_paths(row, build)
    files = {}
    static_ok = True
    for side, (mpath, cpath) in paths.items():
        values = load_metrics(mpath)
        timed = (row.get(side) or {}).get("cubin_sha256")
        beside = sha256_file(cpath)
        if values is None:
            state = "no metrics file"
        elif timed is None:
            state = "not timed"
        elif beside is None:
            state = "no cubin beside the metrics"
        elif beside != timed:
            state = "the cubin beside the metrics is not the one timed"
        else:
            state = "same cubin"
        static_ok &= state == "same cubin"
        files[side] = {"metrics": rel(mpath), "state": state, "values": values}
    out["static_files"] = {s: {k: v for k, v in f.items() if k != "values"}
                           for s, f in files.items()}
    out["static_matches_timed_cubins"] = static_ok
    out["static"] = {}
    for m in metrics:
        b = (files["base"]["values"] or {}).get(m)
        e = (files["edit"]["values"] or {}).get(m)
        entry = {"base": b, "edit": e}
        if b is None or e is None:
            entry["missing"] = [s for s, v in (("base", b), ("edit", e)) if v is None]
            entry["delta_pct"] = None
        else:
            entry["delta_pct"] = delta_pct(b, e)
        out["static"][m] = entry
    return out


def correlations(rows: list[dict], metrics: list[str], include_violations: bool,
                 kinds=("mutant", "validation")) -> dict:
    """Spearman's rho of each metric's delta against the runtime delta, over
    the edit rows (mutants and validation edits) that ran, whose static side
    is the timed cubin, and (unless asked) whose inputs met the signature's
    assumptions."""
    out = {}
    for m in metrics:
        xs, ys, used, left_out = [], [], [], []
        for r in rows:
            if r["kind"] not in kinds:
                continue
            why = None
            if r["runtime"] is None:
                why = "not timed"
            elif not r["static_matches_timed_cubins"]:
                why = "static metrics are not of the timed cubins"
            elif r.get("assumption_violations") and not include_violations:
                why = "inputs broke the signature's assumptions"
            elif r["static"][m]["delta_pct"] is None:
                why = "metric missing"
            if why:
                left_out.append({"id": r["id"], "why": why})
                continue
            xs.append(r["static"][m]["delta_pct"])
            ys.append(r["runtime"]["delta_pct"])
            used.append(r["id"])
        out[m] = {"rho": spearman(xs, ys), "n": len(used), "rows": used, "left_out": left_out}
    return out


def correlation_table(rows: list[dict], metrics: list[str], include_violations: bool) -> dict:
    """correlations(), with each metric's rho over the rows that broke the
    signature's assumptions too (``rho_with_violations``)."""
    main = correlations(rows, metrics, include_violations)
    every = correlations(rows, metrics, True)
    for m in metrics:
        main[m]["rho_with_violations"] = every[m]["rho"]
        main[m]["n_with_violations"] = every[m]["n"]
    return main


def factor(measured_ratio: float, predicted_ratio: float) -> float:
    """How far the estimate's slowdown factor is from the measured one (>= 1)."""
    return max(measured_ratio / predicted_ratio, predicted_ratio / measured_ratio)


def accuracy(rows: list[dict], predictions: dict | None = None) -> dict:
    """Over the rows: Spearman's rho of the estimate's delta with the runtime
    delta, the rows whose slowdown factor the estimate has within 1.5x and
    2x, and the gate's misses: a row 10% faster or more gated as regressed,
    one 5% slower or more that passed. With `predictions` (predict_rows.py),
    the estimate is the one recorded there, and a tuning change's verdict is
    the estimate's against the gate's tolerance."""
    xs, ys, f15, f2, faster_regressed, slower_passed = [], [], [], [], [], []
    estimate_faster_regressed, estimate_slower_passed = [], []
    for r in rows:
        if r.get("runtime") is None:
            continue
        if predictions is not None:
            p = predictions.get(r["id"], {})
            if "base" not in p or "edit" not in p:
                continue
            pred = p["edit"] / p["base"]
        else:
            e = r["static"].get(ESTIMATE, {})
            if e.get("delta_pct") is None:
                continue
            pred = e["edit"] / e["base"]
        meas = r["runtime"]["edit_ms"] / r["runtime"]["base_ms"]
        xs.append(pred)
        ys.append(meas)
        f15.append(factor(meas, pred) <= 1.5)
        f2.append(factor(meas, pred) <= 2)
        gate = r.get("gate") or {}
        state = gate.get("state")
        if predictions is not None and gate.get("tuning"):
            state = "regressed" if 100 * (pred - 1) > ESTIMATE_TOLERANCE_PCT else "pass"
        delta = 100 * (meas - 1)
        if delta <= -10 and state == "regressed":
            faster_regressed.append(r["id"])
        if delta >= 5 and state in ("pass", "improved"):
            slower_passed.append(r["id"])
        # The estimate's own verdict, whatever else the gate holds a code change to.
        if delta <= -10 and 100 * (pred - 1) > ESTIMATE_TOLERANCE_PCT:
            estimate_faster_regressed.append(r["id"])
        if delta >= 5 and 100 * (pred - 1) <= ESTIMATE_TOLERANCE_PCT:
            estimate_slower_passed.append(r["id"])
    return {"n": len(xs), "rho": spearman(xs, ys), "within_1_5": sum(f15), "within_2": sum(f2),
            "faster_regressed": faster_regressed, "slower_passed": slower_passed,
            "estimate_faster_regressed": estimate_faster_regressed,
            "estimate_slower_passed": estimate_slower_passed}


def base_accuracy(rows: list[dict]) -> dict:
    ok = [r for r in rows if r["kind"] == "config" and r.get("predicted_us")]
    ratios = [r["predicted_us"] / r["measured_us"] for r in ok]
    return {"n": len(ok), "within_2": sum(0.5 <= x <= 2 for x in ratios),
            "within_1_5": sum(1 / 1.5 <= x <= 1.5 for x in ratios)}


def controls(rows: list[dict]) -> dict:
    d = [r["runtime"]["delta_pct"] for r in rows if r["kind"] == "noop" and r["runtime"]]
    if not d:
        return {"n": 0}
    a = sorted(abs(x) for x in d)
    return {"n": len(d), "min_pct": min(d), "max_pct": max(d), "max_abs_pct": a[-1],
            "median_abs_pct": a[len(a) // 2] if len(a) % 2 else (a[len(a) // 2 - 1] + a[len(a) // 2]) / 2}


def json_safe(value):
    """The document with each infinite float written as the string "inf" or
    "-inf" (strict JSON has no infinity)."""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(TOP))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------
# Output


def fmt_pct(x):
    if x is None:
        return "missing"
    if math.isinf(x):
        return "+inf (from 0)" if x > 0 else "-inf"
    return f"{x:+.1f}%"


def fmt_static(entry):
    if entry["delta_pct"] is None:
        return "missing"
    return f"{fmt_pct(entry['delta_pct'])} ({fmt_num(entry['base'])} → {fmt_num(entry['edit'])})"


def fmt_num(v):
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.4g}"
    return str(int(v)) if isinstance(v, (int, float)) else str(v)


def summary(doc: dict) -> list[str]:
    """The targets: rank correlation, the slowdown factor within 1.5x and 2x,
    the gate's misses, and each base configuration's time within 2x."""
    a = doc["accuracy"]
    sets = [("validation edits, as the model committed before their timing predicted them",
             a.get("validation_before")),
            ("validation edits, the model now", a["validation"]),
            ("corpus mutants (fitted)", a["mutant"]),
            ("all edits, the model now", a["all"])]
    for key in sorted(k for k in a if k.startswith("set:") and not k.endswith("_before")):
        sets += [(f"set `{key[4:]}`, as the model committed before their timing predicted them",
                  a.get(key + "_before")),
                 (f"set `{key[4:]}`, the model now", a[key])]
    out = ["## The launch estimate against the runtime", "",
           f"`{ESTIMATE}` (the launch model's time) per edit: its delta ranked against the "
           f"runtime delta, its slowdown factor (edit / base) against the measured one, and "
           f"the gate's verdicts (a tuning change judged by `{ESTIMATE}` past its "
           f"{ESTIMATE_TOLERANCE_PCT:g}% tolerance, any other edit by every gated metric), and the "
           f"estimate's own verdicts (`{ESTIMATE}` past its tolerance or not, for every edit).", "",
           "| set | rows | Spearman ρ | factor within 1.5x | within 2x | ≥10% faster, gated regressed | ≥5% slower, passed "
           "| ≥10% faster, the estimate regressed | ≥5% slower, the estimate passed |",
           "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for name, x in sets:
        if not x:
            continue
        rho = "n/a" if x["rho"] is None else f"{x['rho']:+.3f}"
        n = x["n"] or 1
        out.append(f"| {name} | {x['n']} | {rho} | {x['within_1_5']} ({100 * x['within_1_5'] / n:.0f}%) | "
                   f"{x['within_2']} ({100 * x['within_2'] / n:.0f}%) | "
                   f"{', '.join(x['faster_regressed']) or 'none'} | {', '.join(x['slower_passed']) or 'none'} | "
                   f"{', '.join(x.get('estimate_faster_regressed', [])) or 'none'} | "
                   f"{', '.join(x.get('estimate_slower_passed', [])) or 'none'} |")
    b = doc["bases"]
    out += ["", f"Base configurations timed alone: the estimate within 2x of the measured time for "
                f"{b['within_2']} of {b['n']}, within 1.5x for {b['within_1_5']}."]
    if doc.get("predictions_file"):
        files = ", ".join(f"`{f}`" for f in doc["predictions_file"].split(", "))
        out += ["", f"Predictions before the timing: {files} "
                    f"({doc.get('predictions_tileperf')}, made with `tools/bench/predict_rows.py`)."]
    return out + [""]


def bases_table(doc: dict) -> list[str]:
    out = ["## Base configurations: estimated and measured time", "",
           "| configuration | measured µs | estimated µs | estimate / measured | limit | blocks/SM | DRAM busy |",
           "| --- | ---: | ---: | ---: | --- | ---: | ---: |"]
    for r in doc["rows"]:
        if r["kind"] != "config" or r.get("predicted_us") is None:
            continue
        out.append(f"| {r['id']} | {r['measured_us']:.1f} | {r['predicted_us']:.1f} | "
                   f"{r['predicted_us'] / r['measured_us']:.2f} | {r['limit']} | {r['blocks_per_sm']} | "
                   f"{r['dram_pct']}% |")
    return out + [""]


def markdown(doc: dict) -> str:
    metrics = doc["metrics"]
    p = doc["provenance"]
    lines = [
        "# Runtime of the edit corpus against the gate's static metrics",
        "",
        f"Each edit of `tests/mutants` (the corpus the launch model was built on), of "
        f"`tests/validation` (edits written to test it, timed after it was committed) and, as "
        f"controls, of `tests/noop`, timed against its base "
        f"configuration on one {p.get('gpu')}, launching the very cubins the gate measured "
        f"(`config.signature()`, tileiras {doc['cubins'].get('tileiras_release')}, "
        f"{doc['cubins'].get('arch')}; identity checked by SHA-256 at cuTile's compile hook and "
        f"at the driver's `cuLibraryLoadData`). Runtime: median of CUDA-event times, base and "
        f"edit alternating, cold L2; Δ = edit / base − 1. Static Δ: the gate's metrics files "
        f"of the same cubins.",
        "",
        f"- GPU: {p.get('gpu')} ({p.get('nvidia_smi')}); torch {p.get('torch')} "
        f"(CUDA {p.get('torch_cuda')}); cuda-tile {p.get('cuda_tile')}; "
        f"python {p.get('python')}",
        f"- cubins: tileiras {doc['cubins'].get('tileiras_release')}, cuda-tile "
        f"{doc['cubins'].get('cuda_tile')}, bytecode {doc['cubins'].get('bytecode_version')}, "
        f"flags `{' '.join(doc['cubins'].get('tileiras_flags') or [])}`, "
        f"prepared at commit {str(doc['cubins'].get('git_commit'))[:12]}",
        f"- timing: {doc['timing_file']} ({doc['timing_created']}), "
        f"`{doc['timing_command']}`",
        f"- regenerate this file: `{doc['command']}`",
        "",
    ]
    head = "| edit | config | base ms | edit ms | runtime Δ | pair IQR | " + \
        " | ".join(f"{m} Δ" for m in metrics) + " |"
    sep = "|" + " --- |" * (6 + len(metrics))

    def table(kind):
        out = [head, sep]
        for r in doc["rows"]:
            if r["kind"] != kind:
                continue
            mark = ""
            if r.get("assumption_violations"):
                mark += " †"
            if not r["static_matches_timed_cubins"]:
                mark += " ‡"
            if r["runtime"] is None:
                rt = ["—", "—", "not timed", "—"]
            else:
                t = r["runtime"]
                iqr = (f"{100 * (t['pair_ratio_p25'] - 1):+.1f}…{100 * (t['pair_ratio_p75'] - 1):+.1f}%"
                       if t.get("pair_ratio_p25") is not None else "—")
                rt = [f"{t['base_ms']:.4f}", f"{t['edit_ms']:.4f}", f"**{fmt_pct(t['delta_pct'])}**",
                      iqr]
            out.append(f"| {r['patch']}{mark} | {r['config']} | " + " | ".join(rt) + " | "
                       + " | ".join(fmt_static(r["static"][m]) for m in metrics) + " |")
        return out

    lines += summary(doc)
    lines += ["## Validation edits (not fitted)", ""] + table("validation") + [""]
    lines += ["## Mutants (the corpus the model was built on)", ""] + table("mutant") + [""]
    lines += ["## No-op edits (controls)", ""] + table("noop") + [""]
    lines += bases_table(doc)
    c = doc["controls"]
    if c["n"]:
        same_sign = ""
        if c["n"] > 2 and (c["max_pct"] < 0 or c["min_pct"] > 0):
            same_sign = (f" All {c['n']} are {'below' if c['max_pct'] < 0 else 'above'} 0: "
                         f"a systematic offset of about the median |Δ|; the edit runs second "
                         f"in each pair and its inputs are allocated second, and which of "
                         f"the two (if either) causes it is not established.")
        lines += [f"No-op controls: {c['n']} row(s), runtime Δ from {fmt_pct(c['min_pct'])} to "
                  f"{fmt_pct(c['max_pct'])} (median |Δ| {c['median_abs_pct']:.2f}%): a mutant "
                  f"whose |Δ| is below {c['max_abs_pct']:.2f}% is within the noise."
                  + same_sign, ""]
    lines += ["## Rank correlation with the runtime delta (mutants and validation edits)", "",
              "| static metric | Spearman ρ | rows | left out |", "| --- | --- | --- | --- |"]
    for m in metrics:
        s = doc["spearman"][m]
        rho = "n/a" if s["rho"] is None else f"{s['rho']:+.3f}"
        why = {}
        for x in s["left_out"]:
            why.setdefault(x["why"], []).append(x["id"])
        left = "; ".join(f"{k}: {len(v)}" for k, v in why.items()) or "none"
        lines.append(f"| `{m}` | {rho} | {s['n']} | {left} |")
    lines.append("")
    edit_rows = [r for r in doc["rows"] if r["kind"] != "config"]
    notes = []
    if any(r.get("assumption_violations") for r in edit_rows):
        groups: dict[str, list[str]] = {}
        for r in edit_rows:
            if r.get("assumption_violations"):
                what = sorted({re.sub(r"^argument \d+: ", "", v)
                               for vs in r["assumption_violations"].values() for v in vs})
                groups.setdefault("; ".join(what), []).append(r["id"])
        notes.append("† the problem's inputs break an assumption of the configuration's "
                     "signature (the cubin was compiled for inputs it is not given here), so "
                     "the row was timed only because the run allowed it "
                     "(`--allow-assumption-violations`), and it is left out of the "
                     "correlations (ρ with them: " + ", ".join(
                         f"`{m}` " + ("n/a" if doc["spearman"][m]["rho_with_violations"] is None
                                      else f"{doc['spearman'][m]['rho_with_violations']:+.3f}")
                         for m in metrics) + "). " + " ".join(
                         f"{what} in {', '.join(ids)}." for what, ids in groups.items()))
    if edit_rows:
        notes.append("Base times of one configuration differ between rows (the matmul base "
                     "beside a slow edit and beside a no-op, say), presumably with the clocks "
                     "under each row's load, which the run does not record per row: compare "
                     "base and edit within a row, where they alternate under the same "
                     "conditions.")
    if any(not r["static_matches_timed_cubins"] for r in edit_rows):
        notes.append("‡ the static metrics are not of the timed cubins: " + "; ".join(
            f"{r['id']}: " + ", ".join(f"{s} {f['state']}" for s, f in r["static_files"].items()
                                       if f["state"] != "same cubin")
            for r in edit_rows if not r["static_matches_timed_cubins"]))
    missing = sorted({m for r in edit_rows for m in metrics if r["static"][m]["delta_pct"] is None
                      and r["static_matches_timed_cubins"]})
    if missing:
        notes.append("missing: metrics absent from the gate's metrics files: "
                     + ", ".join(f"`{m}`" for m in missing))
    errors = [r for r in edit_rows if r["runtime"] is None]
    if errors:
        notes.append("not timed: " + "; ".join(f"{r['id']}: {r['error']}" for r in errors))
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)


def merged_predictions(paths: list[Path]) -> dict | None:
    """The rows of predict_rows.py's files together (a row in two must agree),
    with the tileperf versions that made them."""
    if not paths:
        return None
    rows, versions = {}, []
    for path in paths:
        doc = json.loads(path.read_text())
        for key, value in doc["rows"].items():
            if rows.get(key, value) != value:
                raise SystemExit(f"{rel(path)}: row {key} differs from another predictions file's")
            rows[key] = value
        if doc.get("tileperf") not in versions:
            versions.append(doc.get("tileperf"))
    return {"tileperf": ", ".join(str(v) for v in versions), "rows": rows}


def build_doc(timing: dict, timing_path: Path, build: Path, metrics: list[str],
              include_violations: bool, command: str, predictions: dict | None = None,
              predictions_path: str | None = None) -> dict:
    rows = [join_row(r, build, metrics) for r in timing["rows"]]
    prov = timing.get("provenance", {})
    edits = [r for r in rows if r["kind"] in ("mutant", "validation")]
    acc = {"mutant": accuracy([r for r in rows if r["kind"] == "mutant"]),
           "validation": accuracy([r for r in rows if r["kind"] == "validation"]),
           "all": accuracy(edits)}
    if predictions is not None:
        acc["validation_before"] = accuracy([r for r in rows if r["kind"] == "validation"],
                                            predictions["rows"])
        acc["all_before"] = accuracy(edits, predictions["rows"])
    # A timing set (the patch header's 'set:', such as the unfitted edits) apart.
    for name in sorted({r["set"] for r in rows if r.get("set")}):
        in_set = [r for r in rows if r.get("set") == name]
        acc[f"set:{name}"] = accuracy(in_set)
        if predictions is not None:
            acc[f"set:{name}_before"] = accuracy(in_set, predictions["rows"])
    return {
        "accuracy": acc,
        "bases": base_accuracy(rows),
        "predictions_file": predictions_path,
        "predictions_tileperf": predictions.get("tileperf") if predictions else None,
        "format": "tileperf-runtime-vs-static/1",
        "command": command,
        "timing_file": rel(timing_path),
        "timing_created": timing.get("created"),
        "timing_command": timing.get("command"),
        "provenance": prov,
        "cubins": timing.get("cubins", {}),
        "settings": timing.get("settings", {}),
        "metrics": metrics,
        "include_assumption_violations": include_violations,
        "controls": controls(rows),
        "spearman": correlation_table(rows, metrics, include_violations),
        "rows": rows,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timing", nargs="?", type=Path, default=DEFAULT_TIMING)
    ap.add_argument("--build", type=Path, default=TOP / "build")
    ap.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                    help="comma-separated metric names (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="writes <out>.md and <out>.json (default: %(default)s)")
    ap.add_argument("--predictions", type=Path, action="append", default=None,
                    help="predict_rows.py's record of the estimates before the timing (default: "
                         "<timing stem>.predictions.json when it exists); repeated, their rows "
                         "together (the validation rows' and the unfitted set's)")
    ap.add_argument("--include-assumption-violations", action="store_true",
                    help="count rows whose inputs broke the signature's assumptions in the "
                         "correlations")
    args = ap.parse_args(argv)
    metrics = [m for m in args.metrics.split(",") if m]
    words = ["python3", "tools/bench/runtime_vs_static.py", rel(args.timing)]
    if rel(args.build) != "build":
        words += ["--build", rel(args.build)]
    if metrics != list(DEFAULT_METRICS):
        words += ["--metrics", ",".join(metrics)]
    if args.out.resolve() != DEFAULT_OUT.resolve():
        words += ["--out", rel(args.out)]
    if args.include_assumption_violations:
        words.append("--include-assumption-violations")
    timing = json.loads(args.timing.read_text())
    paths = args.predictions
    if paths is None:
        guess = args.timing.with_name(args.timing.name.replace(".device.json", "") + ".predictions.json")
        paths = [guess] if guess.exists() else []
    else:
        for path in paths:
            words += ["--predictions", rel(path)]
    predictions = merged_predictions(paths)
    predictions_path = ", ".join(rel(p) for p in paths) if paths else None
    doc = build_doc(timing, args.timing, args.build, metrics,
                    args.include_assumption_violations, shlex.join(words), predictions, predictions_path)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{args.out}.json").write_text(json.dumps(json_safe(doc), indent=1, allow_nan=False)
                                        + "\n")
    Path(f"{args.out}.md").write_text(markdown(doc))
    for m in metrics:
        s = doc["spearman"][m]
        rho = "n/a" if s["rho"] is None else f"{s['rho']:+.3f}"
        print(f"{m:<24} Spearman rho {rho} over {s['n']} edit rows")
    for name, x in doc["accuracy"].items():
        rho = "n/a" if x["rho"] is None else f"{x['rho']:+.3f}"
        print(f"{name:<18} {x['n']} rows, rho {rho}, within 1.5x {x['within_1_5']}, within 2x "
              f"{x['within_2']}, faster gated regressed {len(x['faster_regressed'])}, slower passed "
              f"{len(x['slower_passed'])}")
    print(f"wrote {rel(Path(f'{args.out}.md'))} and {rel(Path(f'{args.out}.json'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
