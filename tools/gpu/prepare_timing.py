"""Gathers, on a CPU machine with the gate's toolchain, everything the GPU
timing of the edit corpus needs (see tools/gpu/prepare_timing.sh), into one
folder to carry to the GPU machine.

  manifest.json          one row per edit and configuration: for the base
                         and the edited kernel, the kernel source, bytecode
                         and cubin (files and SHA-256), the configuration's
                         signature, the cubin's kernel parameters, the
                         problem, and where the gate keeps its metrics
  blobs/<sha256>.<ext>   cubins and bytecode, by content
  src/<sha256[:16]>/<file>.py   kernel sources, by content
  py/tileperf_dump/      the configuration helpers the kernel files import

A cubin comes from the build tree when the gate made it from the current
kernel: its source copy is what the kernel (with the patch applied) is now,
exporting the configuration from that copy again gives the gate's bytecode
byte for byte, and the cubin is newer than that bytecode. Otherwise the
bytecode is exported and compiled here, with the gate's tileiras and flags.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(TOP / "tools"))

import cuda.tile as ct  # noqa: E402
from tileperf_dump import paths  # noqa: E402
from cuda.tile.compilation import export_kernel  # noqa: E402

import gate_launch as gl  # noqa: E402
from tileperf_dump import get_config, load_kernel_module  # noqa: E402

# tools/src/toolchain/toolchain.cpp tileiras_flags(), then --remarks-output-file=<file>
TILEIRAS_FLAGS = ["-O3", "--lineinfo", "--remark-format=yaml", "--remarks=all"]


def tileiras_flags(arch: str) -> list[str]:
    return ["--gpu-name", arch, *TILEIRAS_FLAGS]


def cmake_cache(build: Path) -> dict[str, str]:
    values = {}
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line)
        if m:
            values[m.group(1)] = m.group(2)
    return values


def registrations(work_dir: Path) -> dict[str, str]:
    """Kernel file name -> registered kernel name, from the configuration
    lists configure wrote (build/tileperf/<kernel>/configs.json)."""
    out = {}
    for manifest in sorted(work_dir.glob("*/" + paths.file_name("configs"))):
        source = json.loads(manifest.read_text())["source"]
        out[Path(source).name] = manifest.parent.name
    return out


def patch_header(path: Path) -> dict:
    text = path.read_text()
    fields = {}
    for key in ("config", "expect"):
        m = re.search(rf"^{key}:[ \t]*(.*)$", text, re.M)
        if not m or not m.group(1).split():
            raise ValueError(f"{path}: the header has no '{key}:' line")
        fields[key] = m.group(1).split()
    m = re.search(r"^set:[ \t]*(\S+)", text, re.M)
    fields["set"] = m.group(1) if m else None
    m = re.search(r"^\+\+\+ [^/\s]*/(\S+)", text, re.M)
    if not m:
        raise ValueError(f"{path}: no '+++ b/<file>' line")
    fields["target"] = m.group(1)
    fields["kind"] = ("noop" if fields["expect"] == ["no", "change"]
                      else "validation" if fields["expect"] == ["measured"] else "mutant")
    return fields


def apply_patch(patch_program: str, source: Path, patch: Path) -> bytes:
    """The kernel file with the patch applied, exactly as the gate applies it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / source.name
        r = subprocess.run([patch_program, "--silent", "--fuzz=0", "--forward",
                            "--reject-file=-", "-o", str(out), str(source), str(patch)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{patch} does not apply to {source}: {r.stdout}{r.stderr}")
        return out.read_bytes()


def export_bytecode(source: Path, config: str, bytecode_version: str) -> bytes:
    module = load_kernel_module(source)
    cfg = get_config(module, config)
    buf = io.BytesIO()
    export_kernel(cfg.kernel, [cfg.signature()], buf, output_format="tileir_bytecode",
                  bytecode_version=bytecode_version)
    return buf.getvalue()


def tool_env() -> dict:
    env = dict(os.environ)
    env.pop("CUDA_HOME", None)
    env.pop("CUDA_PATH", None)
    return env


def compile_cubin(tileiras: str, bytecode: Path, arch: str, cubin: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        remarks = Path(tmp) / "remarks.yaml"
        argv = [tileiras, str(bytecode), "-o", str(cubin), *tileiras_flags(arch),
                f"--remarks-output-file={remarks}"]
        r = subprocess.run(argv, capture_output=True, text=True, env=tool_env())
        said = r.stderr + r.stdout
        if r.returncode != 0 or re.search(r"(^|\s)error:", said) or not cubin.exists():
            raise RuntimeError(f"tileiras failed on {bytecode} ({r.returncode}): {said[-2000:]}")


class Store:
    def __init__(self, out: Path):
        self.out = out
        (out / "blobs").mkdir(parents=True, exist_ok=True)
        (out / "src").mkdir(parents=True, exist_ok=True)

    def blob(self, data: bytes, ext: str) -> str:
        rel = f"blobs/{gl.sha256(data)}.{ext}"
        path = self.out / rel
        if not path.exists():
            path.write_bytes(data)
        return rel

    def source(self, data: bytes, name: str) -> str:
        rel = f"src/{gl.sha256(data)[:16]}/{name}"
        path = self.out / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return rel


def prepare_role(*, role: str, store: Store, source_now: bytes, file_name: str, gate_dir: Path,
                 gate_src: Path, config: str, arch: str, bytecode_version: str, tileiras: str,
                 work: Path, log) -> dict:
    """One side (base or edit) of a row: its source, bytecode and cubin."""
    bytecode_path = paths.in_kernel_dir(gate_dir, "bytecode", config)
    cubin_path = paths.in_kernel_dir(gate_dir, "cubin", config, arch)
    why_not = None
    if not gate_src.is_file() or gate_src.read_bytes() != source_now:
        why_not = f"{gate_src} is not the current kernel"
    elif not bytecode_path.is_file() or not cubin_path.is_file():
        why_not = f"no {bytecode_path.name} or {cubin_path.name} in {gate_dir}"
    elif cubin_path.stat().st_mtime < bytecode_path.stat().st_mtime:
        why_not = f"{cubin_path} is older than its bytecode"
    else:
        again = export_bytecode(gate_src, config, bytecode_version)
        if again != bytecode_path.read_bytes():
            why_not = f"exporting {config} from {gate_src} again does not give {bytecode_path}"

    if why_not is None:
        bytecode, cubin = bytecode_path.read_bytes(), cubin_path.read_bytes()
        origin = {"from": "build tree", "bytecode": rel(bytecode_path), "cubin": rel(cubin_path)}
        module_source = gate_src
    else:
        # Export from the gate's own source file when it is current (the
        # bytecode then names the same path), else from a copy; compile here.
        if gate_src.is_file() and gate_src.read_bytes() == source_now:
            module_source = gate_src
        else:
            module_source = store.out / store.source(source_now, file_name)
        bytecode = export_bytecode(module_source, config, bytecode_version)
        work.mkdir(parents=True, exist_ok=True)
        bc_file = work / f"{config}.{role}.tileirbc"
        bc_file.write_bytes(bytecode)
        cubin_file = work / f"{config}.{role}.{arch}.cubin"
        compile_cubin(tileiras, bc_file, arch, cubin_file)
        cubin = cubin_file.read_bytes()
        origin = {"from": "compiled here", "why": why_not, "exported_from": rel(module_source),
                  "command": ["tileiras", "<bytecode>", "-o", "<cubin>", *tileiras_flags(arch),
                              "--remarks-output-file=<file>"]}
        if cubin_path.is_file() and cubin_path.read_bytes() == cubin:
            origin["same_as"] = rel(cubin_path)
        log(f"    {role}: {why_not}: compiled here"
            + (", identical to the build tree's" if "same_as" in origin else ""))

    module = load_kernel_module(module_source)
    cfg = get_config(module, config)
    sig = cfg.signature()
    layout = gl.param_layout(sig)
    params = gl.cubin_params(cubin, sig.symbol)
    problems = []
    if layout is not None and layout != params:
        problems.append(f"the signature passes parameters of {layout} bytes, the cubin takes "
                        f"{params}")
    if gl.cubin_image_extent(cubin) != len(cubin):
        problems.append(f"the cubin's ELF headers span {gl.cubin_image_extent(cubin)} bytes, "
                        f"the file has {len(cubin)}")
    problem = cfg.problem
    return timing_side(store, source_now, file_name, bytecode, cubin, cubin_path,
                     rel(paths.in_kernel_dir(gate_dir, "metrics", config, arch)), origin, sig, params,
                     None if problem is None else {
                         "grid": list(problem.grid_dims), "sizes": dict(problem.sizes),
                         "trips": dict(problem.trips)},
                     problems)


def timing_side(store, source: bytes, file_name: str, bytecode: bytes, cubin: bytes, cubin_path: Path,
              gate_metrics, origin: dict, sig, params, problem, problems: list) -> dict:
    """One side of a timing row as the manifest keeps it: the carried kernel
    source, bytecode and cubin (with their SHA-256), where the gate's cubin
    and metrics lie, how the cubin was had, the signature, the kernel's
    parameters, the problem and what is wrong with any of it."""
    return {
        "source": store.source(source, file_name),
        "source_sha256": gl.sha256(source),
        "bytecode": store.blob(bytecode, "tileirbc"),
        "bytecode_sha256": gl.sha256(bytecode),
        "cubin": store.blob(cubin, "cubin"),
        "cubin_sha256": gl.sha256(cubin),
        "cubin_bytes": len(cubin),
        "gate_cubin": rel(cubin_path),
        "gate_metrics": gate_metrics,
        "origin": origin,
        "signature": gl.describe_signature(sig),
        "kernel_params": params,
        "problem": problem,
        "problems": problems,
    }


def config_rows(args, regs: dict[str, str], store: Store, bytecode_version: str, tileiras: str,
                tmp: Path) -> list[dict]:
    """One row per registered configuration: the gate's own bytecode and cubin."""
    rows = []
    for file_name, kernel in sorted(regs.items(), key=lambda kv: kv[1]):
        manifest = json.loads((args.build / "tileperf" / paths.relative("configs", kernel)).read_text())
        source = Path(manifest["source"])
        for config in manifest["configs"]:
            print(f"{kernel} {config}", flush=True)
            row = {"id": f"{kernel}.{config}", "kind": "config", "kernel": kernel,
                   "file": file_name, "config": config, "arch": args.arch}
            try:
                row["base"] = prepare_role(role="base", store=store, source_now=source.read_bytes(),
                                           file_name=file_name, gate_dir=args.build / "tileperf" / kernel,
                                           gate_src=source, config=config, arch=args.arch,
                                           bytecode_version=bytecode_version, tileiras=tileiras,
                                           work=tmp / kernel, log=print)
            except Exception as e:  # the row is kept, with the reason
                row["error"] = f"{type(e).__name__}: {e}"
                print(f"    error: {row['error']}", flush=True)
            rows.append(row)
    return rows


def manifest_head(created: str, git: str, arch: str, bytecode_version: str, version: str) -> dict:
    """What every timing manifest begins with: its format, when and from
    which commit it was made, the architecture, cuTile's and the bytecode's
    versions and tileiras's (`version`: what `tileiras --version` printed)."""
    release = re.search(r"release ([\d.]+), V([\d.]+)", version)
    return {
        "format": "tileperf-edit-timing-manifest/1",
        "created": created,
        "git_commit": git,
        "arch": arch,
        "cuda_tile": ct.__version__,
        "bytecode_version": bytecode_version,
        "tileiras": {"release": release.group(1) if release else None,
                     "version": release.group(2) if release else None,
                     "banner": version.strip().splitlines()},
    }


def rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(TOP))
    except ValueError:
        return str(path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patches", nargs="*", type=Path,
                    help="patch files or names (default: tests/mutants/*.patch tests/noop/*.patch)")
    ap.add_argument("-o", "--out", type=Path,
                    help="the folder to write (default: .timing, with --configs .gate-cubins)")
    ap.add_argument("--set", dest="timing_set", metavar="NAME",
                    help="the patches whose header says 'set: NAME' (of tests/validation, "
                         "tests/mutants and tests/noop) instead of naming them: a timing set "
                         "such as the unfitted edits (set: unfitted)")
    ap.add_argument("--build", type=Path, default=TOP / "build")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--configs", action="store_true",
                    help="one row per registered configuration (the gate's cubins, no edit), "
                         "for the correctness tests (kernels/test_correctness.py) instead of "
                         "the edit corpus")
    ap.add_argument("--and-configs", action="store_true",
                    help="the configuration rows of --configs as well as the edit corpus, in one "
                         "manifest: the timing of every shipped configuration beside the edits")
    args = ap.parse_args(argv)

    cache = cmake_cache(args.build)
    tileiras = cache["Tileiras_EXECUTABLE"]
    bytecode_version = cache.get("TILEPERF_BYTECODE_VERSION", "13.4")
    patch_program = cache.get("TILEPERF_PATCH") or shutil.which("patch")
    version = subprocess.run([tileiras, "--version"], capture_output=True, text=True,
                             env=tool_env()).stdout

    corpus = {"mutant": TOP / "tests/mutants", "noop": TOP / "tests/noop",
              "validation": TOP / "tests/validation"}
    if args.patches and args.timing_set:
        ap.error("name patches or give --set, not both")
    if args.timing_set:
        patches = [p.resolve() for folder in corpus.values() for p in sorted(folder.glob("*.patch"))
                   if patch_header(p)["set"] == args.timing_set]
        if not patches:
            ap.error(f"no patch of tests/mutants, tests/noop or tests/validation says 'set: {args.timing_set}'")
    elif args.patches:
        patches = []
        for p in args.patches:
            if not p.exists():
                found = [d / f"{p.name.removesuffix('.patch')}.patch" for d in corpus.values()]
                found = [f for f in found if f.exists()]
                if not found:
                    ap.error(f"{p}: no such patch in tests/mutants, tests/noop or tests/validation")
                p = found[0]
            patches.append(p.resolve())
    else:
        patches = [p for folder in corpus.values() for p in sorted(folder.glob("*.patch"))]

    out = (args.out or TOP / (".gate-cubins" if args.configs else ".timing")).resolve()
    if out.exists():
        shutil.rmtree(out)
    store = Store(out)
    shutil.copytree(TOP / "tools/tileperf_dump", out / "py/tileperf_dump",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    regs = registrations(args.build / "tileperf")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.configs or args.and_configs:
            rows = config_rows(args, regs, store, bytecode_version, tileiras, Path(tmp))
        if args.configs:
            patches = []
        for patch in patches:
            head = patch_header(patch)
            name = patch.name.removesuffix(".patch")
            file_name = Path(head["target"]).name
            kernel = regs.get(file_name)
            if kernel is None:
                raise SystemExit(f"{patch}: edits {head['target']}, which no registered kernel uses")
            base_file = TOP / "kernels" / file_name
            base_now = base_file.read_bytes()
            edit_now = apply_patch(patch_program, base_file, patch)
            for config in head["config"]:
                print(f"{name} {config}", flush=True)
                row = {"id": f"{name}.{config}", "patch": name, "kind": head["kind"],
                       "expect": head["expect"], "kernel": kernel, "file": file_name,
                       "config": config, "arch": args.arch}
                if head["set"]:
                    row["set"] = head["set"]
                common = dict(store=store, file_name=file_name, config=config, arch=args.arch,
                              bytecode_version=bytecode_version, tileiras=tileiras,
                              work=Path(tmp) / name, log=print)
                try:
                    row["base"] = prepare_role(role="base", source_now=base_now,
                                               gate_dir=args.build / "tileperf" / kernel,
                                               gate_src=base_file, **common)
                    edit_dir = args.build / "tileperf-selftest" / name
                    row["edit"] = prepare_role(role="edit", source_now=edit_now, gate_dir=edit_dir,
                                               gate_src=edit_dir / file_name, **common)
                except Exception as e:  # the row is kept, with the reason
                    row["error"] = f"{type(e).__name__}: {e}"
                    print(f"    error: {row['error']}", flush=True)
                rows.append(row)

    git = subprocess.run(["git", "-C", str(TOP), "rev-parse", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    manifest = {
        **manifest_head(datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), git,
                        args.arch, bytecode_version, version),
        "tileiras_flags": tileiras_flags(args.arch) + ["--remarks-output-file=<file>"],
        "command": ("tools/gpu/prepare_timing.sh " + " ".join(rel(p) for p in args.patches)
                    if args.patches else f"tools/gpu/prepare_timing.sh --set {args.timing_set}"
                    if args.timing_set else "tools/gpu/prepare_timing.sh"),
        "rows": rows,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    built = sum(1 for r in rows for s in ("base", "edit")
                if s in r and r[s]["origin"]["from"] == "compiled here")
    failed = [r["id"] for r in rows if "error" in r or any(r[s]["problems"] for s in
                                                          ("base", "edit") if s in r)]
    print(f"{len(rows)} rows, {built} cubin(s) compiled here, {size / 2**20:.1f} MiB in {rel(out)}"
          + (f"; rows with problems: {', '.join(failed)}" if failed else ""))
    if size > 40 * 2**20:
        print(f"warning: {rel(out)} is over 40 MiB", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
