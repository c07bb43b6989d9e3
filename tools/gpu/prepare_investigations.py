"""Gathers, on a CPU machine with the gate's build, the GPU timing of
`tileperf investigate`'s variants (see tools/gpu/prepare_investigations.sh):
for each chosen shipped configuration on one architecture, one row per
variant of its investigation, in the folder format tools/gpu/time_edits.py
reads (tools/gpu/prepare_timing.py's manifest, blobs and sources).

  base side   the configuration as the gate measured it: its kernel source,
              the gate's bytecode and cubin (build/tileperf/<kernel>/), the
              configuration's own launch (case, grid, arguments)
  edit side   the variant's cubin (build/tileperf/<kernel>/variants/
              <config>.<arch>/vNN.<arch>.cubin) with the launch the variant
              stands for:
                isolate, exp2, token_order: the configuration's own launch
                  (an isolation computes wrong values: the timing never
                  checks an output);
                hint: the configuration's kernel with the variant's hints
                  (``adjust: {"hints": ...}``; num_ctas changes the launch's
                  clusters, so the kernel object carries it);
                tune: the configuration built again by the function that
                  built it with the variant's argument
                  (``adjust: {"rebuilt": [name, value]}``), so that its grid,
                  constants and case follow the new tile.

Before a row is written, the configuration the edit side stands for is built
here exactly as time_edits.py builds it on the GPU machine, and its
signature record (parameters, constants and hints) must equal the one the
investigation's export recorded (vNN.tileirbc.json): what cuTile derives
from that launch is the kernel the cubin was compiled for. The kernel
parameters the cubin takes must be the ones the signature lays out.

Each row also carries the investigation's estimate (``predicted``: the
base's and the variant's launch estimate, their change, the limit), read
from the investigation record beside the gate's results
(build/tileperf/<kernel>/<config>.<arch>.investigation.json), which must
agree with the committed summary tools/bench/investigations.<arch>.json
(every suggestion and isolation share listed there). The predictions of
every row are also written to --predictions before any timing.

A variant folder that is missing, or stale (its base is not the gate's
current bytecode and cubin, a variant's cubin is older than its bytecode,
the record lists other variants), is made again with `tileperf investigate`
(about 5 s a configuration); its estimates may then differ from the
committed summary, and the row says so.

Rows are ordered so that the ones that matter most run first (the committed
suggestions, then the committed isolation shares, then every other variant,
one configuration after another in turn): a timing run that runs out of time
leaves out the least.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(TOP / "tools"))

import cuda.tile as ct  # noqa: E402

import gate_launch as gl  # noqa: E402
from prepare_timing import (Store, cmake_cache, manifest_head, registrations, rel, timing_side,  # noqa: E402
                            tool_env)
from tileperf_dump import get_config, load_kernel_module, paths  # noqa: E402
from tileperf_dump import variants as V  # noqa: E402
from tileperf_dump.records import signature_record  # noqa: E402

# Shipped configurations whose suggestions or isolation shares are not
# trivial on sm_90, every kernel but one represented (transpose has no
# isolation and its suggestions are under 1%: one configuration of it).
DEFAULT_CONFIGS = [
    "attention.f16_d64", "attention.f16_d64_causal", "attention.bf16_d128_causal_64x64",
    "attention.f16_d128",
    "softmax.f16_1024", "softmax.f16_4096",
    "layer_norm.f16_1024", "layer_norm.bf16_4096",
    "rms_norm.f16_1024", "rms_norm.bf16_8192",
    "rope.f16_t1_h32_d128", "rope.f32_t4_h16_d64",
    "matmul.f16_128x64x32", "matmul.bf16_64x64x64", "matmul.f16_64x128x64_rowmajor",
    "persistent_matmul.bf16_64x128x32", "persistent_matmul.f16_128x64x64",
    "batched_matmul.f16_64x64x32", "batched_matmul.bf16_128x64x64",
    "gelu.f16_8192", "gelu.f16_1024",
    "vector_add.f16_256", "silu_and_mul.f16_4x512", "transpose.f32_32x32",
]


def sha(path: Path) -> str:
    return gl.sha256(path.read_bytes())


def stale_reasons(build: Path, kernel: str, config: str, arch: str, source: Path) -> list[str]:
    """Why the variant folder of a configuration cannot be used as it is."""
    work = build / "tileperf"
    vdir = work / paths.relative("variants_dir", kernel, config, arch)
    record = work / paths.relative("investigation", kernel, config, arch)
    listing = vdir / "variants.json"
    if not listing.is_file() or not record.is_file():
        return [f"no {rel(listing)} or {rel(record)}"]
    why = []
    gate_bc = paths.in_kernel_dir(work / kernel, "bytecode", config)
    gate_cubin = paths.in_kernel_dir(work / kernel, "cubin", config, arch)
    if not (vdir / "base.tileirbc").is_file() or not gate_bc.is_file() or \
            (vdir / "base.tileirbc").read_bytes() != gate_bc.read_bytes():
        why.append("its base is not the gate's current bytecode")
    if not (vdir / f"base.{arch}.cubin").is_file() or not gate_cubin.is_file() or \
            sha(vdir / f"base.{arch}.cubin") != sha(gate_cubin):
        why.append("its base cubin is not the gate's")
    v = json.loads(listing.read_text())
    if Path(v["source"]).resolve() != source.resolve():
        why.append(f"it was made from {v['source']}")
    r = json.loads(record.read_text())
    if {x["id"] for x in v["variants"]} != {x["id"] for x in r["variants"]}:
        why.append("the investigation record lists other variants than variants.json")
    for x in v["variants"]:
        if "error" in x or x.get("same"):
            continue
        bc, cubin = vdir / f"{x['id']}.tileirbc", vdir / f"{x['id']}.{arch}.cubin"
        if not bc.is_file() or not cubin.is_file():
            why.append(f"{x['id']}: no {bc.name} or {cubin.name}")
        elif cubin.stat().st_mtime < bc.stat().st_mtime:
            why.append(f"{x['id']}: its cubin is older than its bytecode")
    return why


def regenerate(build: Path, test: str, log) -> None:
    tileperf = build / "tools" / "tileperf"
    log(f"    tileperf investigate {test} --build-dir {rel(build)}")
    r = subprocess.run([str(tileperf), "investigate", test, "--build-dir", str(build), "--json"],
                       capture_output=True, text=True, env=tool_env(), cwd=TOP)
    if r.returncode != 0:
        raise RuntimeError(f"tileperf investigate {test} failed ({r.returncode}): "
                           + (r.stderr or r.stdout)[-1500:])


def committed_summary(path: Path) -> dict[str, dict]:
    return {t["test"]: t for t in json.loads(path.read_text())["tests"]}


def agrees_with_summary(summary: dict | None, record: dict) -> list[str]:
    """Where the investigation record disagrees with the committed summary."""
    if summary is None:
        return ["the test is not in the committed summary"]
    out = []
    if summary.get("time_ns") != record["base"].get("time_ns"):
        out.append(f"base estimate {record['base'].get('time_ns')} ns, committed {summary.get('time_ns')}")
    by = {(v["kind"], v["what"], v.get("where", "")): v for v in record["variants"]}
    for s in summary.get("suggestions", []):
        v = by.get((s["kind"], s["what"], ""))
        if v is None or v.get("time_ns") != s["time_ns"]:
            out.append(f"suggestion {s['what']}: {None if v is None else v.get('time_ns')} ns, "
                       f"committed {s['time_ns']}")
    for s in summary.get("where_the_time_goes", []):
        v = by.get(("isolate", s["what"], s["where"]))
        if v is None or round(-v.get("change", 0.0), 4) != s["share"]:
            out.append(f"isolation {s['what']} at {s['where']}: not the committed share {s['share']}")
    return out


def variant_config(base_config, variant: dict):
    """The configuration the variant's launch stands for, and the side's
    ``adjust`` (how time_edits.py builds it from the configuration)."""
    changes = variant.get("changes") or {}
    if variant["kind"] == "hint":
        return V.with_hints(base_config, changes["hints"]), {"hints": changes["hints"]}
    if variant["kind"] == "tune":
        return (V.rebuilt(base_config, changes["argument"], changes["to"]),
                {"rebuilt": [changes["argument"], changes["to"]]})
    return base_config, None


def side_spec(*, store: Store, source_bytes: bytes, file_name: str, cubin_path: Path,
              bytecode_path: Path, config, bytecode_version: str, origin: dict,
              gate_metrics: str | None, adjust: dict | None, recorded_signature: dict | None) -> dict:
    cubin, bytecode = cubin_path.read_bytes(), bytecode_path.read_bytes()
    sig = config.signature()
    problems = []
    record = signature_record(config, bytecode_version)
    if recorded_signature is not None and record != recorded_signature:
        diff = sorted(k for k in set(record) | set(recorded_signature)
                      if record.get(k) != recorded_signature.get(k))
        problems.append("the configuration built here is not the one the export recorded: "
                        + ", ".join(f"{k}: {record.get(k)} here, {recorded_signature.get(k)} recorded"
                                    for k in diff[:6]))
    layout = gl.param_layout(sig)
    params = gl.cubin_params(cubin, sig.symbol)
    if layout is not None and layout != params:
        problems.append(f"the signature passes parameters of {layout} bytes, the cubin takes {params}")
    if gl.cubin_image_extent(cubin) != len(cubin):
        problems.append(f"the cubin's ELF headers span {gl.cubin_image_extent(cubin)} bytes, "
                        f"the file has {len(cubin)}")
    problem = config.problem
    if problem is None or callable(problem):
        problems.append("the configuration declares no plain problem to launch")
    spec = timing_side(store, source_bytes, file_name, bytecode, cubin, cubin_path, gate_metrics, origin, sig, params,
                     None if problem is None or callable(problem) else {
                         "grid": list(problem.grid_dims), "sizes": dict(problem.sizes),
                         "trips": {k: getattr(v, "trips", v) for k, v in dict(problem.trips).items()}},
                     problems)
    if adjust is not None:
        spec["adjust"] = adjust
    return spec


def _same_rows(path: Path, predictions: dict) -> bool:
    """Whether the predictions at `path` have the same rows (made again from
    the same investigation records: only the time they were made differs)."""
    try:
        return json.loads(path.read_text()).get("rows") == json.loads(json.dumps(predictions)).get("rows")
    except (OSError, ValueError):
        return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("configs", nargs="*",
                    help="kernel.config names (default: a list of 24 with non-trivial suggestions "
                         "or isolation shares); 'all' for every shipped configuration")
    ap.add_argument("-o", "--out", type=Path, default=TOP / ".timing-investigate")
    ap.add_argument("--build", type=Path, default=TOP / "build")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--summary", type=Path, default=None,
                    help="the committed summary (default tools/bench/investigations.<arch>.json)")
    ap.add_argument("--predictions", type=Path, default=None,
                    help="where to write every row's estimate before its timing (default "
                         "tools/bench/investigations.<arch>.predictions.json; an existing file with "
                         "other rows is never replaced)")
    ap.add_argument("--no-regenerate", action="store_true",
                    help="fail on a missing or stale variant folder instead of making it again")
    args = ap.parse_args(argv)

    build = args.build.resolve()
    summary_path = args.summary or TOP / "tools" / "bench" / f"investigations.{args.arch}.json"
    predictions_path = args.predictions or TOP / "tools" / "bench" / f"investigations.{args.arch}.predictions.json"
    summary = committed_summary(summary_path)
    cache = cmake_cache(build)
    bytecode_version = cache.get("TILEPERF_BYTECODE_VERSION", "13.4")
    regs = registrations(build / "tileperf")  # kernel file name -> kernel
    by_kernel = {k: f for f, k in regs.items()}
    wanted = args.configs or DEFAULT_CONFIGS
    if wanted == ["all"]:
        wanted = [t.split(".")[1] + "." + t.split(".")[2] for t in summary]

    out = args.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    store = Store(out)
    shutil.copytree(TOP / "tools/tileperf_dump", out / "py/tileperf_dump",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))

    per_config: list[list[dict]] = []  # rows of each configuration, in variant order
    tiers: dict[str, int] = {}
    failed = []
    regenerated = []
    for name in wanted:
        kernel, config = name.split(".", 1)
        test = f"perf.{kernel}.{config}.{args.arch}"
        print(test, flush=True)
        if kernel not in by_kernel:
            raise SystemExit(f"{name}: no registered kernel {kernel}")
        file_name = by_kernel[kernel]
        source = TOP / "kernels" / file_name
        why = stale_reasons(build, kernel, config, args.arch, source)
        if why:
            if args.no_regenerate:
                raise SystemExit(f"{test}: the variant folder is stale: {'; '.join(why)}")
            print(f"    stale: {'; '.join(why)}", flush=True)
            regenerate(build, test, print)
            regenerated.append(test)
            why = stale_reasons(build, kernel, config, args.arch, source)
            if why:
                raise SystemExit(f"{test}: still stale after tileperf investigate: {'; '.join(why)}")
        work = build / "tileperf"
        vdir = work / paths.relative("variants_dir", kernel, config, args.arch)
        listing = json.loads((vdir / "variants.json").read_text())
        record = json.loads((work / paths.relative("investigation", kernel, config, args.arch)).read_text())
        disagreement = agrees_with_summary(summary.get(test), record)
        if disagreement:
            print(f"    the investigation record disagrees with {rel(summary_path)}: "
                  + "; ".join(disagreement[:4]), flush=True)
        estimate = {v["id"]: v for v in record["variants"]}
        committed = summary.get(test) or {}
        suggested = {s["what"] for s in committed.get("suggestions", [])}
        shares = {(s["what"], s["where"]) for s in committed.get("where_the_time_goes", [])}

        source_bytes = source.read_bytes()
        module = load_kernel_module(source)
        base_config = get_config(module, config)
        gate_bc = paths.in_kernel_dir(work / kernel, "bytecode", config)
        gate_cubin = paths.in_kernel_dir(work / kernel, "cubin", config, args.arch)
        base_info = json.loads((vdir / "base.tileirbc.json").read_text())
        base_spec = side_spec(store=store, source_bytes=source_bytes, file_name=file_name,
                              cubin_path=gate_cubin, bytecode_path=gate_bc, config=base_config,
                              bytecode_version=bytecode_version,
                              origin={"from": "build tree", "bytecode": rel(gate_bc), "cubin": rel(gate_cubin)},
                              gate_metrics=rel(paths.in_kernel_dir(work / kernel, "metrics", config, args.arch)),
                              adjust=None, recorded_signature=base_info.get("signature"))
        rows = []
        for v in listing["variants"]:
            row = {"id": f"{kernel}.{config}.{v['id']}", "patch": f"investigate.{kernel}.{config}",
                   "kind": v["kind"], "set": "investigate", "expect": None, "kernel": kernel,
                   "file": file_name, "config": config, "arch": args.arch, "test": test,
                   "variant": {k: v.get(k) for k in ("id", "kind", "what", "where", "changes")}}
            est = estimate.get(v["id"], {})
            row["predicted"] = {"base_ns": record["base"].get("time_ns"), "variant_ns": est.get("time_ns"),
                                "change": est.get("change"), "limit": est.get("limit"),
                                "base_limit": record["base"].get("limit"), "regs": est.get("regs"),
                                "blocks_per_sm": est.get("blocks_per_sm"),
                                "committed_suggestion": v["kind"] in V_SUGGESTIONS and v["what"] in suggested,
                                "committed_share": v["kind"] == "isolate" and (v["what"], v.get("where", "")) in shares,
                                "record_agrees_with_summary": not disagreement,
                                "regenerated": test in regenerated}
            if "error" in v or v.get("same"):
                row["error"] = ("the variant has no export: " + v["error"]) if "error" in v else \
                    "the variant exports the configuration's own bytecode: nothing to time"
                tiers[row["id"]] = 3
                rows.append(row)
                continue
            try:
                cfg, adjust = variant_config(base_config, v)
                info = json.loads((vdir / f"{v['id']}.tileirbc.json").read_text())
                row["base"] = base_spec
                row["edit"] = side_spec(
                    store=store, source_bytes=source_bytes, file_name=file_name,
                    cubin_path=vdir / f"{v['id']}.{args.arch}.cubin",
                    bytecode_path=vdir / f"{v['id']}.tileirbc", config=cfg,
                    bytecode_version=bytecode_version,
                    origin={"from": "tileperf investigate", "variant": v["id"], "folder": rel(vdir)},
                    gate_metrics=rel(work / paths.relative("investigation", kernel, config, args.arch)),
                    adjust=adjust, recorded_signature=info.get("signature"))
                rec_grid = (info.get("problem") or {}).get("grid")
                if rec_grid is not None and row["edit"]["problem"] and \
                        list(rec_grid) != row["edit"]["problem"]["grid"]:
                    row["edit"]["problems"].append(f"grid {row['edit']['problem']['grid']} here, "
                                                   f"{rec_grid} recorded by the export")
            except Exception as e:  # the row is kept, with the reason
                row["error"] = f"{type(e).__name__}: {e}"
            if "error" in row or any(row[s]["problems"] for s in ("base", "edit") if s in row):
                failed.append(row["id"])
                print(f"    {v['id']}: " + (row.get("error") or "; ".join(
                    row["base"]["problems"] + row["edit"]["problems"])), flush=True)
            tiers[row["id"]] = 0 if row["predicted"]["committed_suggestion"] else \
                1 if row["predicted"]["committed_share"] else 2
            rows.append(row)
        per_config.append(rows)

    # The committed suggestions first, then the committed shares, then the
    # rest, taking the configurations in turn within each tier.
    ordered = []
    for tier in (0, 1, 2, 3):
        queues = [[r for r in rows if tiers.get(r["id"], 3) == tier] for rows in per_config]
        while any(queues):
            for q in queues:
                if q:
                    ordered.append(q.pop(0))
    ordered += [r for rows in per_config for r in rows if r["id"] not in tiers]
    for r in ordered:
        r["tier"] = tiers.get(r["id"], 3)

    git = subprocess.run(["git", "-C", str(TOP), "rev-parse", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    version = subprocess.run([cache["Tileiras_EXECUTABLE"], "--version"], capture_output=True, text=True,
                             env=tool_env()).stdout
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    command = "tools/gpu/prepare_investigations.sh " + " ".join(argv if argv is not None else sys.argv[1:])
    # A variant without an export has nothing to time: its row stays in the
    # predictions with its error, not in the manifest.
    timed_rows = [r for r in ordered if "error" not in r or "edit" in r]
    manifest = {
        **manifest_head(created, git, args.arch, bytecode_version, version),
        "tileiras_flags": None,
        "command": command.strip(),
        "set": "investigate",
        "summary": rel(summary_path),
        "regenerated": regenerated,
        "rows": timed_rows,
    }
    predictions = {
        "format": "tileperf-investigation-predictions/1",
        "created": created, "git_commit": git, "arch": args.arch, "command": command.strip(),
        "summary": rel(summary_path),
        "note": ("every timed variant's launch estimate, from the investigation records "
                 "(build/tileperf/<kernel>/<config>.<arch>.investigation.json) that the committed "
                 "summary was made from, written before the GPU timing"),
        "rows": [{"id": r["id"], "test": r["test"], "tier": r["tier"], "variant": r["variant"],
                  "predicted": r["predicted"], **({"error": r["error"]} if "error" in r else {})}
                 for r in ordered],
    }
    text = json.dumps(predictions, indent=1) + "\n"
    if predictions_path.exists() and not _same_rows(predictions_path, predictions):
        # The predictions an earlier timing was scored against stay as they
        # were committed: a new round writes a file of its own.
        sys.exit(f"{rel(predictions_path)} exists with other rows (the predictions an earlier timing "
                 f"is scored against): give --predictions a new path")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    predictions_path.write_text(text)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    timed = sum(1 for r in timed_rows if "error" not in r)
    print(f"{len(ordered)} rows ({timed} to time) of {len(per_config)} configurations, "
          f"{size / 2**20:.1f} MiB in {rel(out)}; predictions: {rel(predictions_path)}"
          + (f"; regenerated: {', '.join(regenerated)}" if regenerated else "")
          + (f"; rows with problems: {', '.join(failed)}" if failed else ""), flush=True)
    if size > 40 * 2**20:
        print(f"warning: {rel(out)} is over 40 MiB", file=sys.stderr)
    return 1 if failed else 0


V_SUGGESTIONS = ("tune", "hint", "exp2", "token_order")  # tools/bench/investigate_shipped.py's

if __name__ == "__main__":
    sys.exit(main())
