#!/usr/bin/env python3
"""Times, on a CUDA GPU, every edit of the corpus against its base
configuration, launching the very cubins the gate measured.

    python3 tools/gpu/time_edits.py <timing-dir> <out.json> [--rows ID,...]

<timing-dir> is what tools/gpu/prepare_timing.sh wrote on the machine with
the toolchain (manifest, cubins, kernel sources). Needs PyTorch with CUDA and
cuda-tile (no tileiras: nothing is compiled here).

For each row (an edit and one of its configurations) and each side (base,
edit): the configuration is loaded from the carried kernel source (whose
SHA-256 and whose exported signature must be those of the manifest; a side
with ``adjust`` is the configuration with other hints, ``{"hints": {...}}``,
or built again by the function that built it with one argument changed,
``{"rebuilt": [name, value]}``, as ``tileperf investigate``'s variants are), the
inputs are built once with ``config.case(torch, **config.problem.sizes)``
(the grid must be the problem's; the expected output is never computed), the
arguments are checked against every assumption of the signature, and a
:class:`gate_launch.GateKernel` hands cuTile the gate's cubin as the
compilation for the signature cuTile derives from the arguments (refused
unless it lays out the same parameters). The first launch proves identity:
cuTile asked for exactly one compilation, was served the manifest's cubin,
and the image it passed to the driver's ``cuLibraryLoadData`` has the same
SHA-256 (see ``install_driver_probe``). Then base and edit run alternately
(ABAB...), after a warm-up, each launch between CUDA events and after
overwriting a scratch buffer of several times the L2, so each launch starts
with a cold L2, and after a short busy-wait on the GPU, so the start event
never waits for the host to enqueue the launch. Each row runs until it has about --target-ms of kernel time
per side (between --min-launches and --max-launches launches).

Rows run in a worker process; a row that fails is recorded with its error
and the rows after it run in a fresh worker, so that a CUDA error in one
row cannot spoil the others.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
# What each output row keeps of its manifest row ("set": a timing set, such as
# the unfitted validation edits, that the report keeps apart).
ROW_FIELDS = ("id", "patch", "kind", "set", "expect", "kernel", "config", "arch")
# Kept too where the manifest row has them (the rows of an investigation's
# variants, tools/gpu/prepare_investigations.py: the test, the variant, its tier).
ROW_EXTRA = ("test", "variant", "tier")


def row_head(row: dict) -> dict:
    out = {k: row.get(k) for k in ROW_FIELDS}
    out.update({k: row[k] for k in ROW_EXTRA if k in row})
    return out


def percentile(values, q):
    s = sorted(values)
    if not s:
        return None
    pos = (len(s) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def stats(times_ms):
    return {
        "n": len(times_ms),
        "median_ms": statistics.median(times_ms),
        "mean_ms": statistics.fmean(times_ms),
        "min_ms": min(times_ms),
        "p10_ms": percentile(times_ms, 0.10),
        "p90_ms": percentile(times_ms, 0.90),
        "stdev_ms": statistics.stdev(times_ms) if len(times_ms) > 1 else 0.0,
    }


def sig5(x):
    return float(f"{x:.5g}")


_NUMBER_LIST = re.compile(r"\[(?:\s*-?[0-9][0-9.eE+-]*,?)+\s*\]")


def dumps(doc) -> str:
    """Indented JSON with each list of numbers (the launch times) on one line."""
    return _NUMBER_LIST.sub(lambda m: json.dumps(json.loads(m.group(0))),
                            json.dumps(doc, indent=1)) + "\n"


# ---------------------------------------------------------------------------
# The worker: one process, rows from --start on, one JSON line per event


class Worker:
    def __init__(self, timing_dir: Path, settings: dict):
        self.dir = timing_dir
        self.settings = settings
        sys.path.insert(0, str(HERE))
        sys.path.insert(0, str(timing_dir / "py"))  # the carried tileperf_dump first
        import gate_launch as gl
        self.gl = gl
        self.probe = gl.install_driver_probe() if settings["driver_probe"] else None
        import torch
        import cuda.tile as ct
        self.torch, self.ct = torch, ct
        from tileperf_dump import get_config, load_kernel_module
        self.get_config, self.load_kernel_module = get_config, load_kernel_module
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20
        self.scratch = torch.empty(max(4 * l2, 256 * 2**20), dtype=torch.uint8, device="cuda")
        self.stream = torch.cuda.current_stream()

    def provenance(self) -> dict:
        torch, ct = self.torch, self.ct
        props = torch.cuda.get_device_properties(0)
        import cuda.tile._cext as cext
        try:
            drv = cext.get_driver_version()
        except Exception as e:  # recorded, not fatal
            drv = f"unavailable: {e}"
        return {
            "gpu": torch.cuda.get_device_name(0),
            "compute_capability": list(torch.cuda.get_device_capability(0)),
            "multiprocessors": props.multi_processor_count,
            "l2_bytes": getattr(props, "L2_cache_size", None),
            "memory_bytes": props.total_memory,
            "driver_api_version": drv,
            "nvidia_smi": nvidia_smi(),
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "cuda_tile": ct.__version__,
            "python": platform.python_version(),
            "host": socket.gethostname(),
            "scratch_bytes": self.scratch.numel(),
            "driver_probe": bool(self.probe),
        }

    def side(self, row: dict, role: str) -> dict:
        """Loads one side of a row and checks it against the manifest."""
        gl, torch = self.gl, self.torch
        spec = row[role]
        src = self.dir / spec["source"]
        if gl.sha256(src.read_bytes()) != spec["source_sha256"]:
            raise RuntimeError(f"{role}: {spec['source']} is not the source the manifest names")
        cubin = (self.dir / spec["cubin"]).read_bytes()
        if gl.sha256(cubin) != spec["cubin_sha256"]:
            raise RuntimeError(f"{role}: {spec['cubin']} does not have the manifest's SHA-256")
        module = self.load_kernel_module(src)
        config = self.get_config(module, row["config"])
        if spec.get("adjust"):
            config = adjusted(config, spec["adjust"])
        sig = config.signature()
        if gl.describe_signature(sig) != spec["signature"]:
            raise RuntimeError(f"{role}: the configuration's signature here differs from the "
                               f"one the gate exported")
        params = gl.cubin_params(cubin, sig.symbol)
        layout = gl.param_layout(sig)
        if params != spec["kernel_params"] or (layout is not None and layout != params):
            raise RuntimeError(f"{role}: kernel parameters {params} of the cubin, {layout} "
                               f"from the signature")
        problem = config.problem
        if problem is None:
            raise RuntimeError(f"{role}: CONFIGS[{row['config']!r}] declares no problem")
        torch.manual_seed(0)
        case = config.case(torch, **problem.sizes)
        if tuple(case.grid) != problem.grid_dims:
            raise RuntimeError(f"{role}: the case's grid {tuple(case.grid)} is not the "
                               f"problem's {problem.grid_dims}")
        arg_problems = gl.check_args(sig, case.args)
        if arg_problems and not self.settings["allow_assumption_violations"]:
            raise RuntimeError(f"{role}: the inputs break the signature's assumptions: "
                               + "; ".join(arg_problems))
        kern = gl.GateKernel(config.kernel, signature=sig, cubin=cubin,
                             cubin_sha256=spec["cubin_sha256"], arch=row["arch"])
        layout_of = [(tuple(a.shape), str(a.dtype), tuple(a.stride()))
                     if hasattr(a, "stride") else repr(a) for a in case.args]
        return {"kernel": kern, "case": case, "spec": spec, "sizes": dict(problem.sizes),
                "grid": list(case.grid), "args": layout_of, "violations": arg_problems}

    def first_launch(self, role: str, s: dict) -> dict:
        """Launches once and proves that the gate's cubin is what cuTile loaded."""
        ct, torch = self.ct, self.torch
        kern, spec = s["kernel"], s["spec"]
        before = len(self.probe.loads) if self.probe else 0
        ct.launch(self.stream, tuple(s["case"].grid), kern, s["case"].args)
        torch.cuda.synchronize()
        ident = {"manifest_sha256": spec["cubin_sha256"], "compile_calls": len(kern.compiles)}
        problems = []
        if len(kern.compiles) != 1:
            problems.append(f"cuTile asked for {len(kern.compiles)} compilations")
        served = kern.compiles[0].get("served_sha256") if kern.compiles else None
        ident["served_sha256"] = served
        ident["signature_equal"] = kern.compiles[0]["signature_equal"] if kern.compiles else None
        if kern.compiles and not kern.compiles[0]["signature_equal"]:
            ident["derived_signature"] = kern.compiles[0]["derived_signature"]
        if served != spec["cubin_sha256"]:
            problems.append("the cubin served to cuTile is not the manifest's")
        if self.probe:
            loads = self.probe.loads[before:]
            ident["driver_loads"] = loads
            if len(loads) != 1 or loads[0].get("sha256") != spec["cubin_sha256"] \
                    or loads[0].get("result") != 0:
                problems.append(f"the driver was handed {loads}, not the manifest's cubin once")
        ident["verified"] = not problems
        if problems:
            raise RuntimeError(f"{role}: identity not proven: " + "; ".join(problems))
        return ident

    def run_row(self, row: dict) -> dict:
        torch, ct = self.torch, self.ct
        st = self.settings
        start = time.perf_counter()
        out = row_head(row)
        if "error" in row:
            raise RuntimeError(f"prepare_timing: {row['error']}")
        # A configuration row (kind "config") has a base only: it is timed alone.
        roles = [role for role in ("base", "edit") if role in row]
        for role in roles:
            if row[role]["problems"]:
                raise RuntimeError(f"prepare_timing, {role}: " + "; ".join(row[role]["problems"]))
        sides = {role: self.side(row, role) for role in roles}
        out["sizes"] = sides["base"]["sizes"]
        out["grid"] = {role: sides[role]["grid"] for role in sides}
        if "edit" in sides:
            out["same_sizes"] = sides["base"]["sizes"] == sides["edit"]["sizes"]
            out["same_array_layouts"] = [a for a in sides["base"]["args"] if isinstance(a, tuple)] == \
                [a for a in sides["edit"]["args"] if isinstance(a, tuple)]
        violations = {role: sides[role]["violations"] for role in sides if sides[role]["violations"]}
        if violations:
            out["assumption_violations"] = violations
        ident = {role: self.first_launch(role, sides[role]) for role in roles}

        flush = self.scratch
        events = []

        sleep = getattr(torch.cuda, "_sleep", None)

        def launch(role):
            s = sides[role]
            flush.zero_()
            if sleep is not None and st["lead_cycles"]:
                # Keeps the GPU busy while the host enqueues the launch, so
                # that the start event never waits for the host.
                sleep(st["lead_cycles"])
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record(self.stream)
            t = time.perf_counter()
            ct.launch(self.stream, tuple(s["case"].grid), s["kernel"], s["case"].args)
            host = time.perf_counter() - t
            e1.record(self.stream)
            events.append((role, e0, e1, host))

        def drain():
            torch.cuda.synchronize()
            got = {role: [] for role in roles}
            hosts = {role: [] for role in roles}
            for role, e0, e1, host in events:
                got[role].append(e0.elapsed_time(e1))
                hosts[role].append(host * 1e6)
            events.clear()
            return got, hosts

        def launch_all():
            for role in roles:
                launch(role)

        for _ in range(st["warmup"]):
            launch_all()
        drain()
        for _ in range(3):
            launch_all()
        probe, _ = drain()
        longest = max(statistics.median(probe[role]) for role in roles)
        n = max(st["min_launches"], min(st["max_launches"],
                                        math.ceil(st["target_ms"] / max(longest, 1e-3))))
        for _ in range(n):
            launch_all()
        times, hosts = drain()

        for role in roles:
            kern = sides[role]["kernel"]
            if len(kern.compiles) != 1:
                raise RuntimeError(f"{role}: cuTile asked for another compilation while timing")
            spec = sides[role]["spec"]
            out[role] = {
                **stats(times[role]),
                "host_launch_us_median": statistics.median(hosts[role]),
                "times_ms": [sig5(t) for t in times[role]],
                "cubin_sha256": spec["cubin_sha256"], "cubin_bytes": spec["cubin_bytes"],
                "bytecode_sha256": spec["bytecode_sha256"],
                "source_sha256": spec["source_sha256"],
                "gate_cubin": spec["gate_cubin"], "gate_metrics": spec["gate_metrics"],
                "origin": spec["origin"]["from"],
                "identity": ident[role],
            }
        if self.probe and len(self.probe.loads) != sum(
                len(ident[r].get("driver_loads", ())) for r in ident) + self._loads_before_row:
            raise RuntimeError("the driver loaded another image while timing this row")
        out["seconds"] = round(time.perf_counter() - start, 2)
        if "edit" not in sides:
            del sides
            return out
        pairs = [e / b for b, e in zip(times["base"], times["edit"]) if b > 0]
        out["ratio"] = out["edit"]["median_ms"] / out["base"]["median_ms"]
        out["delta_pct"] = 100.0 * (out["ratio"] - 1.0)
        out["pair_ratio_median"] = statistics.median(pairs)
        out["pair_ratio_p25"] = percentile(pairs, 0.25)
        out["pair_ratio_p75"] = percentile(pairs, 0.75)
        out["seconds"] = round(time.perf_counter() - start, 2)
        del sides
        return out

    def run(self, rows, start: int, sink):
        sink({"event": "provenance", "provenance": self.provenance()})
        for i in range(start, len(rows)):
            row = rows[i]
            if self.settings.get("deadline") and time.time() > self.settings["deadline"]:
                return 0  # the parent records the rows left as skipped
            sink({"event": "start", "index": i, "id": row["id"]})
            self._loads_before_row = len(self.probe.loads) if self.probe else 0
            try:
                result = self.run_row(row)
            except Exception as e:
                result = row_head(row)
                result["error"] = f"{type(e).__name__}: {e}"
                result["traceback"] = traceback.format_exc().splitlines()[-12:]
                sink({"event": "row", "index": i, "row": result})
                try:
                    self.torch.cuda.synchronize()
                except Exception:
                    return 3  # a sticky CUDA error: the next row gets a fresh process
                continue
            finally:
                self.torch.cuda.empty_cache()
            sink({"event": "row", "index": i, "row": result})
        return 0


def adjusted(config, adjust: dict):
    """The configuration a side with ``adjust`` stands for (the carried
    tileperf_dump's variants, as ``tileperf investigate`` made it)."""
    from tileperf_dump import variants as V
    if set(adjust) - {"hints", "rebuilt"}:
        raise RuntimeError(f"unknown adjustment {sorted(adjust)}")
    if "rebuilt" in adjust:
        name, value = adjust["rebuilt"]
        if V.builder_of(config) is None:
            raise RuntimeError("the configuration was not built by a function to build it again with")
        config = V.rebuilt(config, name, value)
    if "hints" in adjust:
        config = V.with_hints(config, adjust["hints"])
    return config


def nvidia_smi():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,"
                            "clocks.max.sm,temperature.gpu,power.draw,pstate",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        return r.stdout.strip() or r.stderr.strip()
    except Exception as e:
        return f"unavailable: {e}"


# ---------------------------------------------------------------------------
# The parent: runs workers, gathers rows, writes the JSON


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timing_dir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--rows", default="", help="comma-separated row ids or patch names")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--min-launches", type=int, default=20)
    ap.add_argument("--max-launches", type=int, default=400)
    ap.add_argument("--target-ms", type=float, default=800.0,
                    help="kernel time to gather per side of a row")
    ap.add_argument("--lead-cycles", type=int, default=200_000,
                    help="GPU clock cycles of busy-waiting (torch.cuda._sleep) queued before "
                         "each start event, so that no launch waits for the host")
    ap.add_argument("--budget-s", type=float, default=330.0,
                    help="rows not started after this many seconds are recorded as skipped")
    ap.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--no-driver-probe", dest="driver_probe", action="store_false")
    ap.add_argument("--allow-assumption-violations", action="store_true",
                    help="launch even when the inputs break an assumption of the signature "
                         "(the row records which); by default such a row is not launched")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rows-file", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    settings = {k: getattr(args, k) for k in ("warmup", "min_launches", "max_launches",
                                              "target_ms", "lead_cycles", "driver_probe",
                                              "allow_assumption_violations")}
    if args.worker is not None:
        settings["deadline"] = args.deadline
        rows = json.loads(args.rows_file.read_text())
        with open(args.out, "a") as f:
            def sink(event):
                f.write(json.dumps(event) + "\n")
                f.flush()
                if event["event"] == "row":
                    r = event["row"]
                    print(f"  {r['id']:<55} " + (f"error: {r['error']}" if "error" in r else
                          f"base {r['base']['median_ms']:.4f} ms  (n={r['base']['n']}, "
                          f"{r['seconds']} s)" if "edit" not in r else
                          f"base {r['base']['median_ms']:.4f} ms  edit {r['edit']['median_ms']:.4f}"
                          f" ms  {r['delta_pct']:+.1f}%  (n={r['base']['n']}, {r['seconds']} s)"
                          + ("  [inputs break the signature's assumptions]"
                             if "assumption_violations" in r else "")), flush=True)
            return Worker(args.timing_dir.resolve(), settings).run(rows, args.worker, sink)

    began = time.time()
    manifest = json.loads((args.timing_dir / "manifest.json").read_text())
    rows = manifest["rows"]
    if args.rows:
        wanted = set(args.rows.split(","))
        rows = [r for r in rows if r["id"] in wanted or r["patch"] in wanted]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    events_file = args.out.with_suffix(".events.jsonl")
    events_file.unlink(missing_ok=True)
    rows_file = args.out.with_suffix(".rows.json")
    rows_file.write_text(json.dumps(rows))
    results: dict[int, dict] = {}
    provenance = None
    start = 0
    print(f"{len(rows)} rows from {args.timing_dir / 'manifest.json'}", flush=True)
    while start < len(rows):
        if time.time() - began > args.budget_s:
            break
        cmd = [sys.executable, str(Path(__file__).resolve()), str(args.timing_dir),
               str(events_file), "--worker", str(start), "--rows-file", str(rows_file),
               "--warmup", str(args.warmup), "--min-launches", str(args.min_launches),
               "--max-launches", str(args.max_launches), "--target-ms", str(args.target_ms),
               "--lead-cycles", str(args.lead_cycles), "--deadline", str(began + args.budget_s)]
        if not args.driver_probe:
            cmd.append("--no-driver-probe")
        if args.allow_assumption_violations:
            cmd.append("--allow-assumption-violations")
        proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        started, last = None, start - 1
        for line in events_file.read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "provenance" and provenance is None:
                provenance = event["provenance"]
            elif event["event"] == "start":
                started = event["index"]
            elif event["event"] == "row":
                results[event["index"]] = event["row"]
                last = max(last, event["index"])
        if started is not None and started not in results:
            # The worker died inside a row: that row gets the reason.
            r = rows[started]
            results[started] = row_head(r)
            results[started]["error"] = (f"worker exited with {proc.returncode} during this row: "
                                         + proc.stderr[-1500:])
            print(f"  {r['id']:<55} error: worker exited with {proc.returncode}", flush=True)
            last = started
        elif proc.returncode not in (0, 3) and last < start:
            sys.stderr.write(proc.stderr)
            raise SystemExit(f"the worker failed before any row (exit {proc.returncode})")
        if proc.returncode != 0 and proc.stderr.strip():
            sys.stderr.write(proc.stderr[-3000:])
        start = last + 1
    out_rows = []
    for i, r in enumerate(rows):
        if i in results:
            out_rows.append(results[i])
        else:
            skipped = row_head(r)
            skipped["error"] = f"skipped: the time budget of {args.budget_s:.0f} s ran out"
            out_rows.append(skipped)
    header = {k: manifest.get(k) for k in ("created", "git_commit", "arch", "cuda_tile",
                                           "bytecode_version", "tileiras", "tileiras_flags",
                                           "command")}
    doc = {
        "format": "tileperf-edit-timing/1",
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": "python3 tools/gpu/time_edits.py " + " ".join(argv or sys.argv[1:]),
        "provenance": {**(provenance or {}), "nvidia_smi_end": nvidia_smi()},
        "cubins": {"tileiras_release": (manifest.get("tileiras") or {}).get("version"),
                   **header},
        "settings": {**settings, "order": "ABAB (base, edit) after the warm-up",
                     "timer": "CUDA events around each launch",
                     "l2": "scratch buffer overwritten before each launch",
                     "lead": "torch.cuda._sleep(lead_cycles) between the overwrite and the start "
                             "event"},
        "wall_seconds": round(time.time() - began, 1),
        "rows": out_rows,
    }
    args.out.write_text(dumps(doc))
    for f in (rows_file,):
        f.unlink(missing_ok=True)
    ok = sum(1 for r in out_rows if "error" not in r)
    print(f"{ok}/{len(out_rows)} rows timed in {doc['wall_seconds']} s -> {args.out}", flush=True)
    return 0 if ok == len(out_rows) else 1


if __name__ == "__main__":
    sys.exit(main())
