#!/usr/bin/env python3
"""Scores `tileperf investigate`'s predictions on the shipped configurations
against a GPU's timing of the variants.

    python3 tools/bench/score_investigations.py [TIMING_JSON]
        [--summary tools/bench/investigations.sm_90.json]
        [--predictions tools/bench/investigations.sm_90.predictions.json]
        [--build build] [--out tools/bench/investigations.sm_90.scored]

TIMING_JSON is what tools/gpu/time_edits.py wrote from the folder
tools/gpu/prepare_investigations.sh made (default
tools/bench/investigations.sm_90.device.json): one row per variant, the
configuration's own cubin and launch (base) against the variant's (edit),
alternating, each launch with a cold L2.

The predictions are the ones committed before any GPU timed a variant: the
summary (tools/bench/investigations.<arch>.json: each test's suggestions,
tile sizes, hints, exp2 and token order estimated faster by 0.5% or more,
best first, at most three, and its isolation shares) and every variant's
estimate (the investigation records the summary was made from, as
prepare_investigations.py copied them to --predictions before the timing;
each is checked again against the variants.json and investigation record of
the build where they are still there, and against the summary).

Writes <out>.md and <out>.json:

- per row: the estimate's change against the measured change (median of
  the edit's launches over the base's);
- the suggested speed-ups that were real: of the summary's suggestions of
  the timed configurations, how many ran at least 2% faster (--real);
- Spearman's rho between estimated and measured change over every timed
  row, over the actionable rows (tune, hint, exp2, token order) and over the
  isolations;
- the isolation shares: each isolated variant's share of the estimate
  (1 - variant / base, estimated) against its share of the measured time
  (1 - variant / base, measured). An isolation computes wrong values and,
  for a cast or a reduction replaced by a constant, lets the compiler remove
  the chain that fed it: an upper bound of the operation's own cost.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_vs_static import spearman  # noqa: E402

ACTIONABLE = ("tune", "hint", "exp2", "token_order")
# A variant that runs in less than this fraction of its base's time does
# almost nothing (a launch's floor): its output cannot be the kernel's.
NO_WORK_RATIO = 0.1


def rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(TOP))
    except ValueError:
        return str(path)


def pct(x, digits=1):
    return "-" if x is None else f"{100 * x:+.{digits}f}%"


def share(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def check_against_build(pred: dict, build: Path, arch: str) -> list[str]:
    """Where a prediction row disagrees with the build's variants.json and
    investigation record (absent files are not a disagreement)."""
    kernel, config = pred["test"].split(".")[1:3]
    vid = pred["variant"]["id"]
    out = []
    listing = build / "tileperf" / kernel / "variants" / f"{config}.{arch}" / "variants.json"
    record = build / "tileperf" / kernel / f"{config}.{arch}.investigation.json"
    if listing.is_file():
        v = {x["id"]: x for x in json.loads(listing.read_text())["variants"]}.get(vid)
        if v is None or (v["kind"], v["what"]) != (pred["variant"]["kind"], pred["variant"]["what"]):
            out.append(f"{vid} is another variant in {rel(listing)}")
    if record.is_file():
        r = {x["id"]: x for x in json.loads(record.read_text())["variants"]}.get(vid)
        if r is not None and r.get("time_ns") != pred["predicted"]["variant_ns"]:
            out.append(f"{vid}: {rel(record)} estimates {r.get('time_ns')} ns now, "
                       f"{pred['predicted']['variant_ns']} before the timing")
    return out


def load(args) -> dict:
    timing = json.loads(args.timing.read_text())
    summary = json.loads(args.summary.read_text())
    arch = summary["arch"]
    predictions = json.loads(args.predictions.read_text())
    by_test = {t["test"]: t for t in summary["tests"]}
    pred = {r["id"]: r for r in predictions["rows"]}
    rows, problems = [], []
    for t in timing["rows"]:
        p = pred.get(t["id"])
        if p is None:
            problems.append(f"{t['id']}: no prediction")
            continue
        problems += check_against_build(p, args.build, arch) if args.build.is_dir() else []
        variant = {("variant_id" if k == "id" else k): v for k, v in p["variant"].items()}
        row = {**variant, "id": t["id"], "test": p["test"], "tier": p.get("tier"),
               "predicted": p["predicted"]["change"], "predicted_ns": p["predicted"]["variant_ns"],
               "base_ns": p["predicted"]["base_ns"], "limit": p["predicted"].get("limit"),
               "base_limit": p["predicted"].get("base_limit"),
               "committed_suggestion": p["predicted"].get("committed_suggestion"),
               "committed_share": p["predicted"].get("committed_share")}
        if "error" in t:
            row["error"] = t["error"]
        else:
            row.update({"base_ms": t["base"]["median_ms"], "edit_ms": t["edit"]["median_ms"],
                        "measured": t["ratio"] - 1.0, "pair_median": t["pair_ratio_median"] - 1.0,
                        "pair_iqr": t["pair_ratio_p75"] - t["pair_ratio_p25"],
                        "n": t["base"]["n"], "grid": t.get("grid")})
            if t["ratio"] < NO_WORK_RATIO:
                row["no_work"] = True
        rows.append(row)
    return {"timing": timing, "summary": summary, "by_test": by_test, "predictions": predictions,
            "rows": rows, "problems": problems, "arch": arch}


def score(d: dict, real: float) -> dict:
    rows = d["rows"]
    timed = [r for r in rows if "measured" in r and r["predicted"] is not None]
    tests = sorted({r["test"] for r in rows})
    by_key = {(r["test"], r["kind"], r["what"], r.get("where") or ""): r for r in rows}

    # The committed suggestions of the timed configurations.
    suggestions = []
    for test in tests:
        for rank, s in enumerate(d["by_test"].get(test, {}).get("suggestions", []), 1):
            r = by_key.get((test, s["kind"], s["what"], ""))
            entry = {"test": test, "rank": rank, "kind": s["kind"], "what": s["what"],
                     "predicted": s["change"], "measured": r.get("measured") if r else None,
                     "id": r["id"] if r else None}
            if r is None or "measured" not in r:
                entry["untimed"] = (r or {}).get("error", "no row")
            suggestions.append(entry)
    measured_s = [s for s in suggestions if s["measured"] is not None]
    for x in suggestions:
        r = by_key.get((x["test"], x["kind"], x["what"], ""))
        if r is not None and r.get("no_work"):
            x["no_work"] = True
    real_s = [s for s in measured_s if s["measured"] <= -real]
    slower_s = [s for s in measured_s if s["measured"] >= real]
    top1 = [s for s in measured_s if s["rank"] == 1]

    # Every actionable variant estimated faster (not only the top three).
    faster_est = [r for r in timed if r["kind"] in ACTIONABLE and r["predicted"] <= -0.005]

    # The isolation shares.
    shares = [{"id": r["id"], "test": r["test"], "what": r["what"], "where": r.get("where"),
               "predicted_share": -r["predicted"], "measured_share": -r["measured"],
               "committed": bool(r.get("committed_share")),
               "upper_bound": "a constant" in r["what"], "no_work": bool(r.get("no_work"))}
              for r in timed if r["kind"] == "isolate"]
    committed_shares = []
    for test in tests:
        for s in d["by_test"].get(test, {}).get("where_the_time_goes", []):
            r = by_key.get((test, "isolate", s["what"], s["where"]))
            committed_shares.append({"test": test, "what": s["what"], "where": s["where"],
                                     "predicted_share": s["share"],
                                     "measured_share": -r["measured"] if r and "measured" in r else None})

    def rho(sel):
        return spearman([r["predicted"] for r in sel], [r["measured"] for r in sel])

    def within(sel, f):
        n = 0
        for r in sel:
            a, b = 1 + r["predicted"], 1 + r["measured"]
            if a > 0 and b > 0 and max(a / b, b / a) <= f:
                n += 1
        return n

    def sign_agree(sel):
        """Rows whose estimate and measurement move the same way (or both
        within the real threshold)."""
        def sgn(x):
            return 0 if abs(x) < real else (1 if x > 0 else -1)
        return sum(1 for r in sel if sgn(r["predicted"]) == sgn(r["measured"]))

    kinds = {}
    for kind in ("isolate", *ACTIONABLE):
        sel = [r for r in timed if r["kind"] == kind]
        if sel:
            kinds[kind] = {"rows": len(sel), "rho": rho(sel), "within_1_5x": within(sel, 1.5),
                           "within_2x": within(sel, 2.0), "same_direction": sign_agree(sel)}
    actionable = [r for r in timed if r["kind"] in ACTIONABLE]

    # Per configuration: the estimate's best actionable variant against the
    # measured best.
    best = []
    for test in tests:
        sel = [r for r in actionable if r["test"] == test]
        if not sel:
            continue
        e = min(sel, key=lambda r: r["predicted"])
        m = min(sel, key=lambda r: r["measured"])
        best.append({"test": test, "estimated_best": e["what"], "estimated_best_predicted": e["predicted"],
                     "estimated_best_measured": e["measured"], "measured_best": m["what"],
                     "measured_best_measured": m["measured"], "measured_best_predicted": m["predicted"],
                     "same": e["id"] == m["id"], "measured_best_no_work": bool(m.get("no_work")),
                     "estimated_best_no_work": bool(e.get("no_work"))})
    sp = [s for s in shares]
    return {
        "rows_timed": len(timed), "rows": len(rows), "configurations": tests,
        "errors": [{"id": r["id"], "error": r["error"]} for r in rows if "error" in r],
        "real_threshold": real,
        "suggestions": suggestions,
        "suggestions_timed": len(measured_s), "suggestions_real": len(real_s),
        "suggestions_real_no_work": sum(1 for x in real_s if x.get("no_work")),
        "suggestions_slower": len(slower_s),
        "top1_real": sum(1 for s in top1 if s["measured"] <= -real), "top1_timed": len(top1),
        "estimated_faster_actionable": len(faster_est),
        "estimated_faster_actionable_real": sum(1 for r in faster_est if r["measured"] <= -real),
        "rho_all": rho(timed), "rho_actionable": rho(actionable),
        "within_1_5x_all": within(timed, 1.5), "within_2x_all": within(timed, 2.0),
        "same_direction_all": sign_agree(timed),
        "kinds": kinds,
        "shares": shares, "committed_shares": committed_shares,
        "shares_rho": spearman([s["predicted_share"] for s in sp], [s["measured_share"] for s in sp]),
        "shares_groups": {
            name: {"rows": len(g),
                   "rho": spearman([x["predicted_share"] for x in g], [x["measured_share"] for x in g]),
                   "median_signed_points": statistics.median(x["predicted_share"] - x["measured_share"]
                                                             for x in g) if g else None,
                   "mean_abs_points": statistics.fmean(abs(x["predicted_share"] - x["measured_share"])
                                                       for x in g) if g else None,
                   "no_work": sum(1 for x in g if x["no_work"])}
            for name, g in (("operation replaced (x * 0.5, a * b)", [x for x in sp if not x["upper_bound"]]),
                            ("cast or reduction replaced by a constant (upper bound)",
                             [x for x in sp if x["upper_bound"]]))},
        "shares_mean_abs_points": statistics.fmean(abs(s["predicted_share"] - s["measured_share"])
                                                   for s in sp) if sp else None,
        "shares_median_signed_points": statistics.median(s["predicted_share"] - s["measured_share"]
                                                         for s in sp) if sp else None,
        "committed_shares_rho": spearman(*zip(*[(x["predicted_share"], x["measured_share"])
                                                for x in committed_shares if x["measured_share"] is not None]))
        if sum(1 for x in committed_shares if x["measured_share"] is not None) >= 3 else None,
        "committed_shares_timed": sum(1 for x in committed_shares if x["measured_share"] is not None),
        "best": best,
        "noise_pair_iqr_median": statistics.median(r["pair_iqr"] for r in timed) if timed else None,
    }


def markdown(d: dict, s: dict, args) -> str:
    t = d["timing"]
    prov = t.get("provenance", {})
    real = s["real_threshold"]
    smi = str(prov.get("nvidia_smi", ""))
    driver = smi.split(", ")[1] if ", " in smi else prov.get("driver_api_version")
    out = [f"# `tileperf investigate`'s predictions on {d['arch']} against the GPU", "",
           f"The estimates were committed before any GPU timed a variant "
           f"([{rel(args.summary)}]({Path(args.summary).name}): the suggestions and isolation shares; "
           f"every variant's estimate in [{rel(args.predictions)}]({Path(args.predictions).name}), "
           f"written from the same investigation records before the timing). The timing "
           f"([{rel(args.timing)}]({Path(args.timing).name})) ran on {prov.get('gpu')} "
           f"(driver {driver}, "
           f"PyTorch {prov.get('torch')}, cuda-tile {prov.get('cuda_tile')}) on {t.get('created')}: "
           f"{s['rows_timed']} variants of {len(s['configurations'])} configurations, each against the "
           f"configuration's own cubin and launch, alternating, each launch with a cold L2 "
           f"(`{t.get('command')}`, {t.get('wall_seconds')} s). A change is real at {100 * real:.0f}% "
           f"or more; the median interquartile range of the per-pair ratios was "
           f"{100 * (s['noise_pair_iqr_median'] or 0):.1f} points.", "",
           "Made by `python3 tools/bench/score_investigations.py`.", ""]
    if "H200" not in str(prov.get("gpu")):
        out += [f"The launch model's {d['arch']} constants are an NVIDIA H200's; this timing ran on "
                f"{prov.get('gpu')}, another card (less DRAM bandwidth, a smaller L2): its figures are "
                "kept apart from an H200's.", ""]
    r = f"{100 * real:.0f}%"
    out += [
           "## Summary", "",
           "| what | result |", "| --- | --- |",
           f"| committed suggestions (top 3 per test, estimated >= 0.5% faster) that ran >= {r} faster | "
           f"**{s['suggestions_real']} of {s['suggestions_timed']}** ({s['suggestions_slower']} ran >= {r} "
           f"slower; {s['suggestions_real_no_work']} of the real ones do almost no work: below "
           f"{NO_WORK_RATIO:.0%} of the base's time, their output cannot be right) |",
           f"| the first suggestion of each test, real | {s['top1_real']} of {s['top1_timed']} |",
           f"| every tune/hint/exp2/token-order variant estimated >= 0.5% faster, real | "
           f"{s['estimated_faster_actionable_real']} of {s['estimated_faster_actionable']} |",
           f"| Spearman rho, estimated vs measured change, all {s['rows_timed']} rows | {fmt(s['rho_all'])} |",
           f"| Spearman rho, the tune/hint/exp2/token-order rows | {fmt(s['rho_actionable'])} |",
           f"| Spearman rho, the isolation shares ({len(s['shares'])} rows) | {fmt(s['shares_rho'])} |",
           f"| Spearman rho, the committed isolation shares (top 3 per test, "
           f"{s['committed_shares_timed']} timed) | {fmt(s['committed_shares_rho'])} |",
           f"| isolation share, estimated minus measured (median; mean absolute) | "
           f"{pts(s['shares_median_signed_points'])}; {pts(s['shares_mean_abs_points'], signed=False)} |",
           f"| variant/base ratio within 1.5x of the estimate's (within 2x) | "
           f"{s['within_1_5x_all']} of {s['rows_timed']} ({s['within_2x_all']}) |",
           f"| estimate and measurement move the same way (both within {100 * real:.0f}% counts as the same) | "
           f"{s['same_direction_all']} of {s['rows_timed']} |",
           f"| rows that did not run | {len(s['errors'])} |", "",
           "The isolation shares by kind of replacement:", "",
           "| replacement | rows | Spearman rho | estimated minus measured (median) | mean absolute "
           "| do almost no work |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, g in s["shares_groups"].items():
        out.append(f"| {name} | {g['rows']} | {fmt(g['rho'])} | {pts(g['median_signed_points'])} | "
                   f"{pts(g['mean_abs_points'], signed=False)} | {g['no_work']} |")
    out += ["",
           "By kind:", "",
           "| kind | rows | Spearman rho | within 1.5x | within 2x | same direction |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for kind, k in s["kinds"].items():
        out.append(f"| {kind} | {k['rows']} | {fmt(k['rho'])} | {k['within_1_5x']} | {k['within_2x']} | "
                   f"{k['same_direction']} |")
    out += ["", "## The committed suggestions", "",
            "| test | # | kind | suggestion | estimated | measured | real |",
            "| --- | ---: | --- | --- | ---: | ---: | --- |"]
    for x in s["suggestions"]:
        verdict = ("untimed: " + x["untimed"]) if "untimed" in x else \
            "yes" if x["measured"] <= -real else "slower" if x["measured"] >= real else "no"
        if x.get("no_work"):
            verdict += " (does almost no work: its output cannot be right)"
        out.append(f"| {x['test']} | {x['rank']} | {x['kind']} | {x['what']} | {pct(x['predicted'])} | "
                   f"{pct(x['measured'])} | {verdict} |")
    out += ["", "## The best actionable variant of each configuration", "",
            "| test | the estimate's best (estimated, measured) | the measured best (estimated, measured) | same |",
            "| --- | --- | --- | --- |"]
    for b in s["best"]:
        out.append(f"| {b['test']} | {b['estimated_best']} ({pct(b['estimated_best_predicted'])}, "
                   f"{pct(b['estimated_best_measured'])}) | {b['measured_best']} "
                   f"({pct(b['measured_best_predicted'])}, {pct(b['measured_best_measured'])}) | "
                   f"{'yes' if b['same'] else 'no'} |")
    out += ["", "## Where the time goes: the committed isolation shares", "",
            "The share of the estimate an isolated operation holds (1 - variant / base) against the "
            "share of the measured time (an isolation computes wrong values; a cast or a reduction "
            "replaced by a constant takes the chain that fed it along: an upper bound).", "",
            "| test | operation | where | replaced by | estimated share | measured share |",
            "| --- | --- | --- | --- | ---: | ---: |"]
    for x in s["committed_shares"]:
        op, _, by = x["what"].partition(" -> ")
        by = "a constant" if by.startswith("a constant") else by
        out.append(f"| {x['test']} | {op} | {x['where']} | {by} | {share(x['predicted_share'])} | "
                   f"{share(x['measured_share'])} |")
    out += ["", "## Every row", "",
            "Tier 0: a committed suggestion; 1: a committed isolation share; 2: every other variant. "
            "Times are medians of the launches (ms); * after the measured change: the variant runs in "
            f"less than {NO_WORK_RATIO:.0%} of its base's time (almost no work).", "",
            "| row | tier | kind | variant | where | estimated | measured | base ms | variant ms | n |",
            "| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in sorted(d["rows"], key=lambda r: (r["test"], r["id"])):
        what = r["what"].split(" -> a constant")[0] + (" -> a constant" if " -> a constant" in r["what"] else "")
        if "error" in r:
            out.append(f"| {r['id']} | {r['tier']} | {r['kind']} | {what} | {r.get('where') or ''} | "
                       f"{pct(r['predicted'])} | error: {' '.join(r['error'].split())[:100]} | | | |")
            continue
        out.append(f"| {r['id']} | {r['tier']} | {r['kind']} | {what} | {r.get('where') or ''} | "
                   f"{pct(r['predicted'])} | {pct(r['measured'])}{' *' if r.get('no_work') else ''} | "
                   f"{r['base_ms']:.4f} | {r['edit_ms']:.4f} | "
                   f"{r['n']} |")
    if d["problems"]:
        out += ["", "## Disagreements between the predictions and the build", ""]
        out += [f"- {p}" for p in d["problems"][:40]]
    return "\n".join(out) + "\n"


def fmt(x):
    return "-" if x is None else f"{x:+.3f}"


def pts(x, signed=True):
    if x is None:
        return "-"
    return f"{100 * x:+.1f} points" if signed else f"{100 * x:.1f} points"


def json_safe(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timing", nargs="?", type=Path, default=TOP / "tools/bench/investigations.sm_90.device.json")
    ap.add_argument("--summary", type=Path, default=TOP / "tools/bench/investigations.sm_90.json")
    ap.add_argument("--predictions", type=Path, default=TOP / "tools/bench/investigations.sm_90.predictions.json")
    ap.add_argument("--build", type=Path, default=TOP / "build")
    ap.add_argument("--out", type=Path, default=TOP / "tools/bench/investigations.sm_90.scored")
    ap.add_argument("--real", type=float, default=0.02, help="the change that counts as real (0.02: 2%%)")
    args = ap.parse_args(argv)
    d = load(args)
    s = score(d, args.real)
    Path(f"{args.out}.md").write_text(markdown(d, s, args))
    Path(f"{args.out}.json").write_text(json.dumps(json_safe({
        "format": "tileperf-investigation-score/1", "timing": rel(args.timing), "summary": rel(args.summary),
        "predictions": rel(args.predictions), "gpu": d["timing"].get("provenance", {}).get("gpu"),
        **{k: v for k, v in s.items()}, "rows": d["rows"], "problems": d["problems"]}), indent=1) + "\n")
    print(f"{s['rows_timed']} rows timed of {s['rows']}; suggestions real {s['suggestions_real']}/"
          f"{s['suggestions_timed']}; rho all {fmt(s['rho_all'])}, actionable {fmt(s['rho_actionable'])}, "
          f"shares {fmt(s['shares_rho'])}; -> {rel(Path(f'{args.out}.md'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
