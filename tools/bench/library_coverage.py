#!/usr/bin/env python3
"""Which of a library's @ct.kernel functions an example gates.

    tools/bench/library_coverage.py <library package folder> <example build>/tileperf [--exclude GLOB]...

reads every dump record of the example's build (the kernel each configuration
exported) and lists the library's kernels (every function of its modules
decorated with `ct.kernel`) gated and not gated, with the lines of configuration per gated kernel (the example's
configuration files' lines over the kernels they gate).
"""
import argparse
import ast
import fnmatch
import json
import sys
from pathlib import Path


def _tile_names(tree) -> tuple[set[str], set[str]]:
    """The names a module binds cuda.tile to (``import cuda.tile as ct``) and
    its ``kernel`` to (``from cuda.tile import kernel``)."""
    modules, kernels = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name == "cuda.tile" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "cuda":
            modules |= {a.asname or a.name for a in node.names if a.name == "tile"}
        elif isinstance(node, ast.ImportFrom) and node.module == "cuda.tile":
            kernels |= {a.asname or a.name for a in node.names if a.name == "kernel"}
    return modules, kernels


def _kernel_decorated(node, names: tuple[set[str], set[str]]) -> bool:
    modules, kernels = names
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Attribute) and target.attr == "kernel" and \
                isinstance(target.value, ast.Name) and target.value.id in modules:
            return True
        if isinstance(target, ast.Name) and target.id in kernels:
            return True
    return False


def library_kernels(root: Path, exclude: list[str]) -> dict[str, list[str]]:
    """Function name -> the library's files that define a kernel of that name
    (functions decorated with ``ct.kernel`` or ``ct.kernel(...)``, found by
    parsing: mentions in comments and docstrings are not kernels)."""
    kernels: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = str(path.relative_to(root))
        if any(fnmatch.fnmatch(rel, g) for g in exclude):
            continue
        try:
            tree = ast.parse(path.read_text(errors="replace"))
        except SyntaxError:
            continue
        names = _tile_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _kernel_decorated(node, names):
                kernels.setdefault(node.name, []).append(rel)
    return kernels


def gated(work: Path, kernels: dict[str, list[str]]) -> tuple[dict[tuple[str, str], set[str]], set[Path]]:
    """(file, kernel) -> the configurations that gate it. A name that several
    files define is told apart by the kernel file the bytecode names."""
    found: dict[tuple[str, str], set[str]] = {}
    sources = set()
    current = set()  # the records of the configurations registered now, not of removed ones
    for listing in work.glob("*/configs.json"):
        current |= {listing.parent / f"{c}.tileirbc.json" for c in json.loads(listing.read_text())["configs"]}
    for record in sorted(current):
        if not record.is_file():
            continue
        r = json.loads(record.read_text())
        name = r.get("kernel")
        if r.get("source"):
            sources.add(Path(r["source"]))
        if not name or name not in kernels:
            continue
        files = kernels[name]
        if len(files) > 1:
            bytecode = record.with_name(record.name[:-len(".json")])
            data = bytecode.read_bytes() if bytecode.is_file() else b""
            files = [f for f in files if f.encode() in data] or files[:1]
        found.setdefault((files[0], name), set()).add(f"{record.parent.name}.{r['config']}")
    return found, sources


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("library", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args(argv)
    kernels = library_kernels(args.library, args.exclude)
    found, sources = gated(args.work, kernels)
    every = sorted((f, n) for n, files in kernels.items() for f in files)
    lines = sum(len(p.read_text().splitlines()) for p in sources if p.is_file())
    print(f"{len(found)} of {len(every)} kernels gated, {sum(len(v) for v in found.values())} configurations, "
          f"{lines} lines of configuration files ({lines / max(len(found), 1):.1f} per gated kernel)")
    for f, n in every:
        if (f, n) not in found:
            print(f"  not gated: {n} ({f})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
