"""The exports of ``tileperf investigate``: one configuration for one
architecture, as it is and as each what-if variant of
:mod:`tileperf_dump.variants` makes it, into a folder of its own; nothing
the user wrote is edited.

``python -m tileperf_dump.investigate --source FILE --config NAME --arch ARCH --out DIR``
writes ``DIR/base.tileirbc`` (and its dump record), ``DIR/v<N>.tileirbc``
per variant, and ``DIR/variants.json`` (format ``tileperf-variants/1``):
each variant's kind, what it changed, its files, or the error that kept
it from exporting (a row, never a failed command). Exit 0 once the list is
written; 2 when the configuration itself cannot be exported.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import time
import traceback
from pathlib import Path

from tileperf_dump import variants as V
from tileperf_dump.files import write_atomic, write_json

FORMAT = "tileperf-variants/1"
MAX_SITES = 12  # isolation variants, the sites with the most operations first


@dataclasses.dataclass
class Plan:
    """One variant to export: its kind, what it changes, the emit and the
    configuration change that make it."""
    kind: str
    what: str
    where: str = ""
    emit: object = None
    adjust: object = None
    config: object = None  # a configuration built again (tuning)
    token_order_off: bool = False
    changes: dict = dataclasses.field(default_factory=dict)


def _hints(signature: dict) -> dict:
    """The hints of an export's signature record ("hints.occupancy": "2"), as
    values: an int, None where unset, the text where it is per target."""
    out = {}
    for key, text in (signature or {}).items():
        if key.startswith("hints."):
            out[key[6:]] = None if text == "None" else int(text) if str(text).isdigit() else text
    return out


def _plans(config, signature: dict, census: V.Census, kinds: set[str]) -> list[Plan]:
    hints = _hints(signature)
    bytecode_version = str((signature or {}).get("bytecode_version", "13.4"))
    plans: list[Plan] = []
    sites = sorted(census.ops.items(), key=lambda kv: (V.CLASSES.index(kv[0].cls), -sum(kv[1].values()), kv[0]))
    if "isolate" in kinds:
        for site, ops in sites[:MAX_SITES]:
            names = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in sorted(ops.items()))
            plans.append(Plan("isolate", f"{names} -> {V.CHEAP[site.cls]}", V.where_text(site.file, site.line),
                              changes={"class": site.cls, "ops": ops, "site": [site.file, site.line]},
                              emit=("isolate", site)))
    if "exp2" in kinds:
        for site, ops in sites:
            if site.cls == "transcendental" and "exp" in ops:
                plans.append(Plan("exp2", "exp(x) -> exp2(x * log2(e))", V.where_text(site.file, site.line),
                                  changes={"site": [site.file, site.line]}, emit=("exp2", site)))
    if "token_order" in kinds:
        plans.append(Plan("token_order", "cuTile's token ordering off (CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER=1)",
                          token_order_off=True))
    if "hint" in kinds:
        for tried in V.hint_neighbours(hints, bytecode_version):
            plans.append(Plan("hint", V.describe_hints(tried), changes={"hints": tried},
                              adjust=lambda c, h=tried: V.with_hints(c, h)))
    if "tune" in kinds:
        for name, value in V.tuning_arguments(config, signature).items():
            for new in (n for n in (value // 2, value * 2) if n >= 1):
                plans.append(Plan("tune", f"{name} {value} -> {new}", changes={"argument": name, "from": value, "to": new},
                                  config=(name, new)))
    return plans


def _emit(plan: Plan, replaced: list[str]):
    if plan.emit is None:
        return None
    kind, site = plan.emit
    return V.isolate_emit(site, replaced) if kind == "isolate" else V.exp2_emit(site.file, site.line, replaced)


def _constants_changed(base: dict | None, variant: dict | None) -> dict[str, list]:
    """The constants and hints that differ between two exports' signatures."""
    before, after = V.signature_constants(base), V.signature_constants(variant)
    return {k: [before.get(k), after.get(k)] for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)}


def _named(key: str, names: list[str]) -> str:
    """``parameters[2]`` as the kernel's parameter name (``TILE``) where known."""
    if key.startswith("parameters[") and key.endswith("]"):
        index = int(key[len("parameters["):-1])
        if index < len(names):
            return names[index]
    return key


def _arrays(record: dict | None) -> list:
    return [(a.get("shape"), a.get("dtype")) for a in (record or {}).get("arrays", [])]


def _export(module, config, name, arch, bytecode_version, plan: Plan | None, replaced: list[str],
            census: V.Census | None = None):
    """One export of the configuration (``plan``: a variant's) for ``arch``;
    ``census`` gets the costly operations cuTile itself emitted (those a
    variant replaced are not among them)."""
    from tileperf_dump.export import _for_arch
    with contextlib.ExitStack() as stack:
        inner = _emit(plan, replaced) if plan else None
        count = V.census_emit(census) if census is not None else None

        def emit(op, ctx):
            value = inner(op, ctx) if inner is not None else None
            if value is None and count is not None:
                count(op, ctx)
            return value
        if inner is not None or count is not None:
            stack.enter_context(V.emitting(emit))
        if plan is not None and plan.token_order_off:
            stack.enter_context(V.token_order_off())
        return _for_arch(module, config, name, arch, bytecode_version, adjust=plan.adjust if plan else None)


def _write(out: Path, stem: str, module, export, name, bytecode_version) -> dict:
    from tileperf_dump.export import export_record
    record = export_record(module, export, name, bytecode_version, export.seconds)
    bytecode, info = out / f"{stem}.tileirbc", out / f"{stem}.tileirbc.json"
    write_atomic(bytecode, export.bytecode)
    write_json(info, record, indent=2, sort_keys=True)
    return {"bytecode": str(bytecode), "dump_info": str(info)}


def _error_text(error: dict | None) -> str:
    if not error:
        return "the export made no bytecode"
    where = f"{error.get('file')}:{error.get('line')}: " if error.get("file") else ""
    return where + str(error.get("message", "")).strip().splitlines()[0][:400]


def investigate(source: str, name: str, arch_name: str, out: Path, bytecode_version: str,
                placeholders=(), bare=(), kinds=frozenset({"isolate", "exp2", "token_order", "hint", "tune"})) -> dict:
    from tileperf_dump.archs import arch
    from tileperf_dump.loading import get_config, load_kernel_module, reload_for
    module = load_kernel_module(source, placeholders, bare, target=arch(arch_name))
    config = get_config(module, name)
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("*.tileirbc")) + list(out.glob("*.tileirbc.json")):
        old.unlink()
    census = V.Census()
    start = time.perf_counter()
    base = _export(module, config, name, arch_name, bytecode_version, None, [], census)
    if not base.bytecode:
        raise SystemExit(f"{source}: CONFIGS[{name!r}] does not export for {arch_name}: {_error_text(base.problem_error)}")
    listing = {"format": FORMAT, "source": str(Path(source).resolve()), "config": name, "arch": arch_name,
               "base": _write(out, "base", module, base, name, bytecode_version),
               "sites": [{"class": s.cls, "where": V.where_text(s.file, s.line), "ops": ops}
                         for s, ops in sorted(census.ops.items())],
               "tuning_arguments": V.tuning_arguments(config, base.signature), "hints": _hints(base.signature),
               "variants": []}
    if V.builder_of(config) is None:
        listing["tuning_note"] = ("the configuration is not built by a module-level function of plain "
                                  "arguments: its tile sizes are not explored (its hints are)")
    elif not listing["tuning_arguments"]:
        listing["tuning_note"] = ("no argument of the function that builds the configuration sets a "
                                  "constant of the kernel: only the hints are explored")
    for index, plan in enumerate(_plans(config, base.signature, census, set(kinds)), 1):
        row = {"id": f"v{index:02d}", "kind": plan.kind, "what": plan.what, "where": plan.where,
               "changes": plan.changes}
        replaced: list[str] = []
        try:
            variant_module, variant_config = module, config
            if plan.config is not None:
                if config.launch is not None:
                    # A library's launch tunes and caches what it chose (in the
                    # process): the library is imported anew for the variant.
                    variant_module = reload_for(module, arch(arch_name))
                    variant_config = get_config(variant_module, name)
                variant_config = V.rebuilt(variant_config, *plan.config)
            left = V.Census()
            export = _export(variant_module, variant_config, name, arch_name, bytecode_version, plan, replaced, left)
            if plan.config is not None and export.signature is not None:
                moved = _constants_changed(base.signature, export.signature)
                if not moved or _arrays(export.problem) != _arrays(base.problem):
                    continue  # it sets no constant after all, or it changes the problem, not its tuning
                names = config.parameter_names if config.kernel is not None else []
                row["changes"]["constants"] = {_named(k, names): v for k, v in moved.items()}
            if plan.emit is not None and not replaced:
                row["error"] = "the operation was not emitted by this export"
            elif not export.bytecode or export.problem_error:
                row["error"] = _error_text(export.problem_error)
            elif (export.bytecode, export.signature, export.problem) == (base.bytecode, base.signature, base.problem):
                row["same"] = True  # nothing to compile: the configuration's own export
            else:
                row.update(_write(out, row["id"], module, export, name, bytecode_version))
                if replaced:
                    row["replaced"] = len(replaced)
                    site = plan.emit[1]
                    row["left_at_site"] = sum(n for s_, ops in left.ops.items() for op, n in ops.items()
                                              if (s_.file, s_.line) == (site.file, site.line)
                                              and (s_.cls == site.cls if plan.kind == "isolate" else op == "exp"))
        except Exception as e:  # noqa: BLE001 - a variant that cannot be made is its row
            row["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:400]
            traceback.print_exc(file=sys.stderr)
        listing["variants"].append(row)
    listing["seconds"] = round(time.perf_counter() - start, 3)
    write_json(out / "variants.json", listing, indent=1, sort_keys=True)
    return listing


def main(argv: list[str] | None = None) -> int:
    """The exports of an investigation; in the resident export process
    (``tileperf_dump.server``, started if need be), else here."""
    from tileperf_dump import server
    argv = sys.argv[1:] if argv is None else argv
    if not os.environ.get("TILEPERF_IN_EXPORT_SERVER"):
        code = server.delegate("tileperf_dump.investigate", argv)
        if code is not None:
            return code
    parser = argparse.ArgumentParser(prog="python -m tileperf_dump.investigate")
    parser.add_argument("--source", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--bytecode-version", required=True)
    parser.add_argument("--placeholder", action="append", default=[])
    parser.add_argument("--bare-package", action="append", default=[])
    parser.add_argument("--kinds", default="isolate,exp2,token_order,hint,tune")
    args = parser.parse_args(argv)
    try:
        investigate(args.source, args.config, args.arch, args.out, args.bytecode_version, args.placeholder,
                    args.bare_package, frozenset(k for k in args.kinds.split(",") if k))
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            return 2
        raise
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{args.source}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
