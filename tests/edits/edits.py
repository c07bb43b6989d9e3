"""The edits of tileperf's self-tests, from their patch headers, ready for
CMake (tests/edits/TileperfEditTests.cmake):

    python tests/edits/edits.py --selftest-dir DIR --baseline-dir DIR --archs sm_120,sm_90
        --bytecode-version V --kernel NAME=SOURCE... [--mutants DIR] [--noops DIR]
        [--validation DIR]

A patch is a unified diff of one kernel file after a header of keyword lines
(described in TileperfEditTests.cmake). This writes into DIR ``edits.json``,
what each edit expects (read by ``tileperf check --edit`` and ``tileperf
edit-report``), ``edits.record.json`` (the dump batch's entries) and
``edits.cmake`` (per edit its kernel, source, configurations,
architectures, kind, dump step and checks), and prints the path of the
last. A header that breaks the rules stops with ``PATCH: what is wrong``
(exit 2).
"""

import argparse
import shlex
import sys
from pathlib import Path

from tileperf_dump import paths
from tileperf_dump.files import write_atomic, write_json
from tileperf_dump.cmake import cmake_checks, cmake_set, dump_args

# folder option: the kind of its edits, and what their `expect:` must be
FOLDERS = {"mutants": "mutant", "noops": "noop", "validation": "validation"}


class HeaderError(ValueError):
    pass


def field(patch: Path, lines: list[str], keyword: str, required: bool = True) -> list[str] | None:
    """The words after the first '<keyword>:' line."""
    line = next((l for l in lines if l.startswith(keyword + ":")), None)
    words = shlex.split(line[len(keyword) + 1:]) if line is not None else []
    if not words and required:
        raise HeaderError(f"{patch}: the header has no '{keyword}:' line")
    return words if line is not None else None


def patched_kernel(patch: Path, lines: list[str], kernels: dict[str, str]) -> tuple[str, str]:
    """The registered kernel (name, source) whose source file the patch edits."""
    target = next((l[4:].split()[0] for l in lines if l.startswith("+++ ")), "")
    target = target.split("/", 1)[1] if "/" in target else target
    for kernel, source in kernels.items():
        if Path(source).name == Path(target).name:
            return kernel, source
    raise HeaderError(f"{patch}: edits '{target}', which no registered kernel uses")


def kind_of(patch: Path, folder_kind: str, expect: list[str]) -> str:
    kind = {("no", "change"): "noop", ("measured",): "validation"}.get(tuple(expect), "mutant")
    if kind != folder_kind:
        raise HeaderError(f"{patch}: " + {
            "mutant": "a mutant must expect metrics, not 'no change'",
            "noop": "a no-op edit must say 'expect: no change'",
            "validation": "a validation edit must say 'expect: measured'"}[folder_kind])
    return kind


def edit(patch: Path, folder_kind: str, args) -> dict:
    """What one patch's header says, and the files of its self-tests."""
    name = paths.check_name("edit", patch.name.split(".")[0])
    lines = patch.read_text().splitlines()
    expect = field(patch, lines, "expect")
    kind = kind_of(patch, folder_kind, expect)
    configs = field(patch, lines, "config")
    kernel, source = patched_kernel(patch, lines, args.kernels)
    wanted = field(patch, lines, "archs", required=False)
    archs = args.archs if wanted is None else [a for a in wanted if a in args.archs]
    out = {"name": name, "kind": kind, "expect": [] if kind == "noop" else expect,
           "configs": configs, "archs": archs}
    if kind == "validation":
        out["measured"] = " ".join(field(patch, lines, "measured"))
        miss = next((l for l in lines if l.startswith("miss:")), None)
        if miss is not None:
            out["miss"] = miss[len("miss:"):].lstrip(" \t")
    return out | {"patch": str(patch), "kernel": kernel, "source": source}


def registration(e: dict, args) -> dict:
    """The self-tests of one edit: its copy of the kernel file, dump and checks."""
    work = args.selftest_dir / e["name"]
    copy = work / Path(e["source"]).name
    dump = {"test": f"dump.edit.{e['name']}", "stamp": str(paths.in_kernel_dir(work, "dump_stamp")),
            "pytest_args": dump_args(copy, work, args.bytecode_version, e["configs"])}
    checks = [{"test": f"{e['kind']}.{e['name']}.{c}.{a}", "config": c, "arch": a,
               "bytecode": str(paths.in_kernel_dir(work, "bytecode", c)),
               "baseline": str(args.baseline_dir / paths.relative("baseline", e["kernel"], c, a))}
              for c in e["configs"] for a in e["archs"]]
    return {"work": str(work), "copy": str(copy), "dump": dump, "checks": checks}


def cmake_text(edits: list[dict], regs: list[dict], expectations: Path, record: Path) -> str:
    text = (cmake_set("tileperf_edits_manifest", expectations)
            + cmake_set("tileperf_edits_record", record)
            + cmake_set("tileperf_edits", *(e["name"] for e in edits)))
    for e, r in zip(edits, regs):
        text += cmake_set(f"tileperf_edit_{e['name']}", "KIND", e["kind"], "KERNEL", e["kernel"],
                          "PATCH", e["patch"], "SOURCE", e["source"], "COPY", r["copy"],
                          "WORK", r["work"], "STAMP", r["dump"]["stamp"])
        text += cmake_set(f"tileperf_edit_{e['name']}_dump_args", *r["dump"]["pytest_args"])
        text += cmake_set(f"tileperf_edit_{e['name']}_checks", *(c["test"] for c in r["checks"]))
        text += cmake_checks("tileperf_check_", r["checks"])
    return text


def _arguments(argv: list[str]):
    parser = argparse.ArgumentParser(prog="edits.py")
    parser.add_argument("--selftest-dir", type=Path, required=True)
    parser.add_argument("--baseline-dir", type=Path, required=True)
    parser.add_argument("--archs", type=lambda s: [a for a in s.split(",") if a], required=True)
    parser.add_argument("--bytecode-version", required=True)
    parser.add_argument("--kernel", action="append", default=[], metavar="NAME=SOURCE")
    for option in FOLDERS:
        parser.add_argument(f"--{option}", type=Path)
    args = parser.parse_args(argv)
    args.kernels = dict(k.split("=", 1) for k in args.kernel)
    return args


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    try:
        edits = [edit(patch, kind, args) for option, kind in FOLDERS.items()
                 if getattr(args, option) for patch in sorted(getattr(args, option).glob("*.patch"))]
    except (HeaderError, paths.PathError, OSError) as e:
        print(e, file=sys.stderr)
        return 2
    regs = [registration(e, args) for e in edits]
    args.selftest_dir.mkdir(parents=True, exist_ok=True)
    expectations = args.selftest_dir / "edits.json"
    write_json(expectations, [{k: v for k, v in e.items() if k not in ("patch", "kernel", "source")}
                              for e in edits], indent=2)
    record = args.selftest_dir / "edits.record.json"
    write_json(record, {"dump_batch": [r["dump"] for r in regs]}, indent=2)
    cmake = args.selftest_dir / "edits.cmake"
    write_atomic(cmake, cmake_text(edits, regs, expectations, record).encode())
    print(cmake)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
