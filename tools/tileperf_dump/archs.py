"""The architectures of the one table (``archs.json``), as the dump step
reads them: :func:`arch` gives an architecture's :class:`Arch` (the row of
the highest architecture at or below it, as the C++ launch model takes it),
:func:`lowest_arch` the architecture a library is imported for when none is
named. Importing this module imports neither cuTile nor torch."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("archs.json")
FORMAT = "tileperf-archs/1"


class ArchTableError(ValueError):
    """The architecture table is malformed (its file and field named)."""


@dataclass(frozen=True)
class Arch:
    """An architecture as a problem or a launch sees it: the GPU the launch
    model stands for on it (``row``: its fields of ``archs.json`` by name)."""
    name: str
    sms: int
    capability: tuple[int, int]
    part: str = ""
    row: dict[str, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)


def _number(name: str) -> int:
    digits = "".join(c for c in name.removeprefix("sm_") if c.isdigit())
    return int(digits) if digits else 0


_REQUIRED = {"part": str, "source": str, "sms": int, "capability": list, "memory_bytes": int, "l2_bytes": int,
             "clock_ghz": (int, float), "registers_per_sm": int, "max_threads_per_sm": int,
             "shared_bytes_per_sm": int, "shared_bytes_per_block_optin": int}


@functools.lru_cache(maxsize=None)
def rows(path: Path = TABLE) -> dict[str, dict[str, Any]]:
    """The table's rows by architecture, each checked for the fields the
    dump step reads (:class:`ArchTableError` naming the file and field)."""
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ArchTableError(f"{path}: cannot read the architecture table: {e}") from None
    if not isinstance(table, dict) or table.get("format") != FORMAT:
        raise ArchTableError(f'{path}: format must be "{FORMAT}"')
    archs = table.get("archs")
    if not isinstance(archs, dict) or not archs:
        raise ArchTableError(f"{path}: archs must be an object of one row per architecture")
    for name, row in archs.items():
        if _number(name) == 0 or not isinstance(row, dict):
            raise ArchTableError(f"{path}: archs.{name}: not an architecture's row")
        for key, kind in _REQUIRED.items():
            value = row.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ArchTableError(f"{path}: archs.{name}.{key} is missing or of the wrong type")
        cap = row["capability"]
        if len(cap) != 2 or not all(isinstance(c, int) for c in cap):
            raise ArchTableError(f"{path}: archs.{name}.capability must be [major, minor]")
    return archs


def arch(name: str) -> Arch:
    """The architecture ``name`` (``sm_90``): its row, or the row of the
    highest architecture below it (the lowest row below every row)."""
    table = rows()
    below = [a for a in table if _number(a) <= _number(name)] or [min(table, key=_number)]
    row = table[max(below, key=_number)]
    return Arch(name, row["sms"], tuple(row["capability"]), row["part"], row)


def lowest_arch() -> str:
    """The lowest architecture the table knows (what a library is imported
    for when no architecture is named)."""
    return min(rows(), key=_number)
