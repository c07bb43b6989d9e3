"""The names of the work folder's and the baselines' files, built and parsed
in one place, from the one table of them, ``work_paths.json`` beside this
file (the tileperf command and the CMake API read the same table).

Each kind's path, relative to its root (the work folder, by default
``<build>/tileperf``, or the baselines folder), is a template::

    run.json                               the run's own files
    dump-batch.{part}.json
    {kernel}/configs.json                  a kernel's
    {kernel}/{config}.tileirbc             a configuration's
    {kernel}/{config}.{arch}.cubin         a configuration's on an architecture

Kernel and configuration names match :data:`NAME_PATTERN`; architectures
match :data:`ARCH_PATTERN`; a part is dot-separated names (``all``,
``sm_90``, ``kernels.1``). Imports no cuTile.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from tileperf_dump.defaults import ARCH_PATTERN, NAME_PATTERN

NAME_RE = re.compile(NAME_PATTERN)
ARCH_RE = re.compile(ARCH_PATTERN)
PART_PATTERN = rf"{NAME_PATTERN}(?:\.{NAME_PATTERN})*"
PART_RE = re.compile(PART_PATTERN)

TABLE_FILE = Path(__file__).resolve().with_name("work_paths.json")
ROOTS = ("work", "baselines")
_FIELDS = {"kernel": NAME_PATTERN, "config": NAME_PATTERN, "arch": ARCH_PATTERN, "part": PART_PATTERN}


class Kind(NamedTuple):
    """A row of the table: its root, its path template, and the fields the
    template names."""
    root: str
    template: str
    fields: tuple[str, ...]


def _load_kinds() -> dict[str, Kind]:
    kinds = {}
    for row in json.loads(TABLE_FILE.read_text())["kinds"]:
        fields = tuple(re.findall(r"\{(\w+)\}", row["path"]))
        kinds[row["kind"]] = Kind(row["root"], row["path"], fields)
    return kinds


KINDS: dict[str, Kind] = _load_kinds()


class WorkPath(NamedTuple):
    """What a path names: its root, kind, kernel, configuration, architecture and part."""
    root: str
    kind: str
    kernel: str | None = None
    config: str | None = None
    arch: str | None = None
    part: str | None = None


class PathError(ValueError):
    """A name that breaks the rule, or a path that names no known file."""


def check_name(what: str, value: str) -> str:
    """``value`` when it matches :data:`NAME_PATTERN`, else a PathError."""
    if not isinstance(value, str) or not NAME_RE.fullmatch(value):
        raise PathError(f"{what} name {value!r} must match {NAME_PATTERN}")
    return value


def check_arch(value: str) -> str:
    if not isinstance(value, str) or not ARCH_RE.fullmatch(value):
        raise PathError(f"architecture {value!r} must look like sm_120")
    return value


def _check_part(value: str) -> str:
    if not isinstance(value, str) or not PART_RE.fullmatch(value):
        raise PathError(f"part {value!r} must be dot-separated names ({NAME_PATTERN})")
    return value


_CHECKS = {"kernel": lambda v: check_name("kernel", v), "config": lambda v: check_name("configuration", v),
           "arch": check_arch, "part": _check_part}


def _kind(kind: str) -> Kind:
    if kind not in KINDS:
        raise PathError(f"no kind of file {kind!r}")
    return KINDS[kind]


def relative(kind: str, kernel: str | None = None, config: str | None = None,
             arch: str | None = None, part: str | None = None) -> PurePosixPath:
    """The path of a kind of file relative to its root."""
    row = _kind(kind)
    given = {"kernel": kernel, "config": config, "arch": arch, "part": part}
    text = row.template
    for field in row.fields:
        text = text.replace("{" + field + "}", _CHECKS[field](given[field]))
    return PurePosixPath(text)


def file_name(kind: str, config: str | None = None, arch: str | None = None) -> str:
    """The name of a kind of file in its kernel's folder."""
    row = _kind(kind)
    if not row.template.startswith("{kernel}/"):
        raise PathError(f"a {kind} file is no file of a kernel's folder")
    return relative(kind, "k", config, arch).name


def in_kernel_dir(folder: str | Path, kind: str, config: str | None = None,
                  arch: str | None = None) -> Path:
    """The file of ``kind`` in a kernel's own folder (``<root>/<kernel>``, or
    the folder a dump step writes to)."""
    return Path(folder) / file_name(kind, config, arch)


def in_work_dir(work: str | Path, kind: str, part: str | None = None) -> Path:
    """The run's own file of ``kind`` (run, dump_batch, ...) in the work folder."""
    return Path(work) / relative(kind, part=part)


def _regex(template: str) -> re.Pattern:
    out, at = "", 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out += re.escape(template[at:m.start()]) + f"(?P<{m.group(1)}>{_FIELDS[m.group(1)]})"
        at = m.end()
    return re.compile(out + re.escape(template[at:]))


_REGEXES = {kind: _regex(row.template) for kind, row in KINDS.items()}


def parse(root: str, path: str | PurePosixPath) -> WorkPath:
    """What a path relative to ``root`` ("work" or "baselines") names; a
    PathError when it names no file of that root."""
    text = str(PurePosixPath(path))
    if root in ROOTS:
        for kind, row in KINDS.items():
            m = _REGEXES[kind].fullmatch(text) if row.root == root else None
            if m:
                return WorkPath(root, kind, **m.groupdict())
    raise PathError(f"{path}: names no file of the {root} folder")


def parse_name(root: str, name: str) -> tuple[str, str | None, str | None] | None:
    """(kind, config, arch) of a file name in a kernel's folder, or None."""
    try:
        found = parse(root, PurePosixPath("k", name))
    except PathError:
        return None
    return found.kind, found.config, found.arch


DUMP_OUTPUTS = ("bytecode", "dump_record", "arch_bytecode")


def dump_outputs(folder: str | Path) -> list[Path]:
    """The files a dump step writes that are in ``folder``: bytecode and dump
    records, by name."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if (parse_name("work", p.name) or ("",))[0] in DUMP_OUTPUTS)
