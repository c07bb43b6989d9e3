"""The names of the work folder's and the baselines' files, built and parsed
in one place (``tests/fixtures/work_paths.json`` is the table they follow).

Every file belongs to a kernel, and most to one of its configurations and an
architecture; its path, relative to its root (the work folder, by default
``<build>/tileperf``, or the baselines folder), is::

    <kernel>/configs.json                  kernel:  configs, dump_stamp
    <kernel>/<config>.tileirbc             config:  bytecode, dump_record
    <kernel>/<config>.<arch>.<suffix>      arch:    cubin, sass, metrics, ...

Kernel and configuration names match :data:`NAME_PATTERN`; architectures
match :data:`ARCH_PATTERN`. Imports no cuTile.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from tileperf_dump.defaults import ARCH_PATTERN, NAME_PATTERN

NAME_RE = re.compile(NAME_PATTERN)
ARCH_RE = re.compile(ARCH_PATTERN)

ROOTS = ("work", "baselines")
# kind: (root, the file name after "<config>." or "<config>.<arch>.", or the
# whole name for a kernel's own files; what the name holds)
KINDS: dict[str, tuple[str, str, str]] = {
    "configs": ("work", "configs.json", "kernel"),
    "dump_stamp": ("work", "dump.stamp.json", "kernel"),
    "registration": ("work", "registration.cmake", "kernel"),
    "bytecode": ("work", "tileirbc", "config"),
    "dump_record": ("work", "tileirbc.json", "config"),
    "arch_bytecode": ("work", "tileirbc", "arch"),
    "cubin": ("work", "cubin", "arch"),
    "sass": ("work", "sass", "arch"),
    "remarks": ("work", "remarks.yaml", "arch"),
    "res_usage": ("work", "res-usage.txt", "arch"),
    "tileir": ("work", "tileir", "arch"),
    "metrics": ("work", "metrics.json", "arch"),
    "result": ("work", "result.json", "arch"),
    "memo": ("work", "memo.json", "arch"),
    "timeline": ("work", "timeline.json", "arch"),
    "lock": ("work", "lock", "arch"),
    "baseline": ("baselines", "json", "arch"),
    "baseline_detail": ("baselines", "detail.json", "arch"),
}


class WorkPath(NamedTuple):
    """What a path names: its root, kind, kernel, configuration and architecture."""
    root: str
    kind: str
    kernel: str
    config: str | None = None
    arch: str | None = None


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


def file_name(kind: str, config: str | None = None, arch: str | None = None) -> str:
    """The name of a kind of file in its kernel's folder."""
    if kind not in KINDS:
        raise PathError(f"no kind of file {kind!r}")
    _, suffix, holds = KINDS[kind]
    if holds == "kernel":
        return suffix
    name = check_name("configuration", config)
    if holds == "arch":
        name += "." + check_arch(arch)
    return f"{name}.{suffix}"


def relative(kind: str, kernel: str, config: str | None = None,
             arch: str | None = None) -> PurePosixPath:
    """The path of a kind of file relative to its root."""
    return PurePosixPath(check_name("kernel", kernel), file_name(kind, config, arch))


def in_kernel_dir(folder: str | Path, kind: str, config: str | None = None,
                  arch: str | None = None) -> Path:
    """The file of ``kind`` in a kernel's own folder (``<root>/<kernel>``, or
    the folder a dump step writes to)."""
    return Path(folder) / file_name(kind, config, arch)


def _kind_of(root: str, holds: str, suffix: str) -> str | None:
    return next((k for k, (r, s, h) in KINDS.items() if (r, s, h) == (root, suffix, holds)), None)


def parse_name(root: str, name: str) -> tuple[str, str | None, str | None] | None:
    """(kind, config, arch) of a file name in a kernel's folder, or None."""
    kind = _kind_of(root, "kernel", name)
    if kind:
        return kind, None, None
    config, _, rest = name.partition(".")
    if not NAME_RE.fullmatch(config):
        return None
    kind = _kind_of(root, "config", rest)
    if kind:
        return kind, config, None
    arch, _, suffix = rest.partition(".")
    kind = _kind_of(root, "arch", suffix)
    return (kind, config, arch) if kind and ARCH_RE.fullmatch(arch) else None


def parse(root: str, path: str | PurePosixPath) -> WorkPath:
    """What a path relative to ``root`` ("work" or "baselines") names; a
    PathError when it names no file of that root."""
    parts = PurePosixPath(path).parts
    if root not in ROOTS or len(parts) != 2 or not NAME_RE.fullmatch(parts[0]):
        raise PathError(f"{path}: not <kernel>/<file> of the {root} folder")
    found = parse_name(root, parts[1])
    if found is None:
        raise PathError(f"{path}: names no file of the {root} folder")
    return WorkPath(root, found[0], parts[0], *found[1:])


DUMP_OUTPUTS = ("bytecode", "dump_record", "arch_bytecode")


def dump_outputs(folder: str | Path) -> list[Path]:
    """The files a dump step writes that are in ``folder``: bytecode and dump
    records, by name."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if (parse_name("work", p.name) or ("",))[0] in DUMP_OUTPUTS)
