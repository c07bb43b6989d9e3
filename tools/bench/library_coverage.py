#!/usr/bin/env python3
"""Which of a library's @ct.kernel functions an example gates.

    tools/bench/library_coverage.py <library package folder> <example build>/tileperf [--exclude GLOB]...

reads every dump record of the example's build (the kernel each configuration
exported, and the kernel of each architecture's launch) and lists the
library's kernels (every `@ct.kernel` function of its modules) gated and not
gated, with the lines of configuration per gated kernel (the example's
configuration files' lines over the kernels they gate).
"""
import argparse
import fnmatch
import json
import re
import sys
from pathlib import Path


def library_kernels(root: Path, exclude: list[str]) -> dict[str, list[str]]:
    kernels: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = str(path.relative_to(root))
        if any(fnmatch.fnmatch(rel, g) for g in exclude):
            continue
        text = path.read_text(errors="replace")
        for m in re.finditer(r"^@ct\.kernel[^\n]*\n(?:@[^\n]*\n)*def (\w+)", text, re.M):
            kernels.setdefault(m.group(1), []).append(rel)
    return kernels


def gated(work: Path) -> tuple[dict[str, set[str]], set[Path]]:
    found: dict[str, set[str]] = {}
    sources = set()
    for record in work.glob("*/*.tileirbc.json"):
        r = json.loads(record.read_text())
        if r.get("kernel"):
            found.setdefault(r["kernel"], set()).add(f"{record.parent.name}.{r['config']}")
        if r.get("source"):
            sources.add(Path(r["source"]))
    return found, sources


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("library", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args(argv)
    kernels = library_kernels(args.library, args.exclude)
    found, sources = gated(args.work)
    names = set(kernels)
    hit = sorted(n for n in names if n in found)
    lines = sum(len(p.read_text().splitlines()) for p in sources if p.is_file())
    print(f"{len(hit)} of {len(names)} kernels gated, {sum(len(found[n]) for n in hit)} configurations, "
          f"{lines} lines of configuration files ({lines / max(len(hit), 1):.1f} per gated kernel)")
    for n in sorted(names - set(hit)):
        print(f"  not gated: {n} ({', '.join(kernels[n])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
