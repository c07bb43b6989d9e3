"""Configurations from a library's kernel inventory in FlashInfer-Bench's
schema, so that the shapes gated are the ones the library declares:

- a **Definition** (``kernel_definitions/<name>.json``) names the axes of an
  operation (``"type": "const"`` with a ``value``, or ``"var"``), its inputs
  (a ``dtype`` and a ``shape`` of axis names or numbers, ``null`` for a
  scalar) and its outputs;
- a **Workload** (``kernel_workloads/<name>/workload.jsonl``, one JSON object
  per line) gives the var axes' values and each input: ``random`` (a tensor)
  or ``scalar`` with its ``value``;
- a **Solution** (``kernel_solutions/*.json``) names the definition it
  implements, its language and its ``spec.entry_point``
  (``src/<package path>.py::<function>``).

:func:`inventory_configs` makes one :class:`Config` per workload line of
every definition with a cuTile solution: its launch calls the entry point
with fake tensors of the workload's shapes, by the inputs' names.

Every file is read exactly or refused: a malformed file is a ``ValueError``
naming the file and the place in it (``path:line`` or ``path:key``), and
nothing else escapes the reader, whatever the file holds. The bounds: a
file of at most ``MAX_FILE_BYTES``, UTF-8, JSON nested at most
``MAX_DEPTH`` levels, no key twice in one object, no NaN or Infinity;
axis values and sizes are integers from 0 to 2^63 - 1 (``true`` is not
1); numbers are finite; names are words of ``[A-Za-z0-9_.-]`` that do not
start with a dot (the definition's names a folder).
"""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path
from typing import Any

from tileperf_dump.config import Config

LANGUAGE = "cuda-tile"
MAX_FILE_BYTES = 16 << 20
MAX_DEPTH = 64
MAX_SIZE = 2**63 - 1
NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
DTYPE_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")


def _fail(path: Path, where: str, what: str):
    raise ValueError(f"{path}:{where}: {what}")


def _is_size(value) -> bool:
    """An integer from 0 to MAX_SIZE (a bool is not one)."""
    return type(value) is int and 0 <= value <= MAX_SIZE


def _text(data: bytes, path: Path) -> str:
    """``data`` as UTF-8, or an error at the line of the first bad byte."""
    if len(data) > MAX_FILE_BYTES:
        _fail(path, "0", f"larger than {MAX_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(path, str(data[:e.start].count(b"\n") + 1), f"not UTF-8 (byte {e.start})")


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        _fail(path, "0", f"cannot read: {e.strerror}")
    return data


def _depth_past(text: str) -> int:
    """The offset where ``text``'s arrays and objects nest deeper than
    MAX_DEPTH (outside strings), or -1."""
    depth, in_string, escaped = 0, False, False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif c in "]}":
            depth -= 1
    return -1


def _unique_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is past a double's range")
    return value


def _json(text: str, path: Path, line: int = 0):
    """The JSON of ``text`` (line ``line`` of a JSON-lines file, or a whole
    file when 0), or an error at its line."""
    past = _depth_past(text)
    if past >= 0:
        _fail(path, str(line or text.count("\n", 0, past) + 1), f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as e:
        _fail(path, str(line or getattr(e, "lineno", 1)), f"not JSON: {e}")


def _object(data: bytes, path: Path) -> dict:
    value = _json(_text(data, path), path)
    if not isinstance(value, dict):
        _fail(path, "1", "expected a JSON object")
    return value


def _read_json(path: Path) -> dict:
    return _object(_read_bytes(path), path)


def _check_axes(d: dict, path: Path) -> None:
    if not isinstance(d["axes"], dict) or not isinstance(d["inputs"], dict):
        _fail(path, "axes", "axes and inputs must be objects")
    for axis, spec in d["axes"].items():
        if not NAME_RE.fullmatch(axis):
            _fail(path, "axes", f"axis name {axis[:40]!r} must be a word of [A-Za-z0-9_.-]")
        if not isinstance(spec, dict) or spec.get("type") not in ("const", "var"):
            _fail(path, f"axes.{axis}.type", "expected \"const\" or \"var\"")
        if spec["type"] == "const" and not _is_size(spec.get("value")):
            _fail(path, f"axes.{axis}.value", f"a const axis needs an integer value from 0 to {MAX_SIZE}")


def _check_inputs(d: dict, path: Path) -> None:
    for name, spec in d["inputs"].items():
        if not NAME_RE.fullmatch(name):
            _fail(path, "inputs", f"input name {name[:40]!r} must be a word of [A-Za-z0-9_.-]")
        if not isinstance(spec, dict) or not isinstance(spec.get("dtype"), str) \
                or not DTYPE_RE.fullmatch(spec["dtype"]):
            _fail(path, f"inputs.{name}.dtype", "expected a dtype name")
        shape = spec.get("shape")
        if shape is not None and not (isinstance(shape, list) and all(
                _is_size(a) or (isinstance(a, str) and a in d["axes"]) for a in shape)):
            _fail(path, f"inputs.{name}.shape", f"expected null or a list of axes of {sorted(d['axes'])} "
                                                f"or integers, got {repr(shape)[:200]}")


def parse_definition(data: bytes, path: Path) -> dict:
    """A Definition from the bytes of its file, checked: its name, axes and
    inputs (dtype, shape)."""
    d = _object(data, path)
    for key in ("name", "axes", "inputs"):
        if key not in d:
            _fail(path, key, "missing")
    if not isinstance(d["name"], str) or not NAME_RE.fullmatch(d["name"]):
        _fail(path, "name", "expected a word of [A-Za-z0-9_.-] that does not start with a dot")
    _check_axes(d, path)
    _check_inputs(d, path)
    return d


def read_definition(path: Path) -> dict:
    """A Definition, checked: its axes, inputs (dtype, shape) and name."""
    return parse_definition(_read_bytes(path), path)


def _check_workload(w, number: int, path: Path, definition: dict) -> None:
    if not isinstance(w, dict) or not isinstance(w.get("axes", {}), dict) or not isinstance(w.get("inputs"), dict):
        _fail(path, str(number), "expected an object with axes and inputs")
    for axis, value in w.get("axes", {}).items():
        if not _is_size(value):
            _fail(path, f"{number}: axes.{axis[:40]}", f"an axis value must be an integer from 0 to {MAX_SIZE}")
    for axis, spec in definition["axes"].items():
        if spec["type"] == "var" and axis not in w.get("axes", {}):
            _fail(path, f"{number}: axes.{axis}", "a var axis of the definition needs an integer value")
    for name in definition["inputs"]:
        given = w["inputs"].get(name)
        if not isinstance(given, dict) or given.get("type") not in ("random", "scalar"):
            _fail(path, f"{number}: inputs.{name}", "expected {\"type\": \"random\"} or "
                                                    "{\"type\": \"scalar\", \"value\": ...}")
        if given["type"] == "scalar" and "value" not in given:
            _fail(path, f"{number}: inputs.{name}.value", "a scalar input needs its value")


def parse_workloads(data: bytes, path: Path, definition: dict) -> list[tuple[int, dict]]:
    """(line, workload) of the bytes of a workload.jsonl, each checked
    against its definition (lines end at "\\n" alone)."""
    out = []
    for number, line in enumerate(_text(data, path).split("\n"), 1):
        if not line.strip():
            continue
        w = _json(line, path, number)
        _check_workload(w, number, path, definition)
        out.append((number, w))
    return out


def read_workloads(path: Path, definition: dict) -> list[tuple[int, dict]]:
    """(line, workload) of a workload.jsonl, each checked against its definition."""
    return parse_workloads(_read_bytes(path), path, definition)


def parse_solution(data: bytes, path: Path) -> dict:
    """A Solution from the bytes of its file: its definition's name and its
    spec (language, entry point), as far as they are there."""
    s = _object(data, path)
    if "definition" in s and not isinstance(s["definition"], str):
        _fail(path, "definition", "expected the name of a definition")
    if not isinstance(s.get("spec", {}), dict):
        _fail(path, "spec", "expected an object")
    return s


def entry_point(solution: dict, path: Path):
    """The function a Solution's ``spec.entry_point`` names, imported."""
    text = solution.get("spec", {}).get("entry_point")
    if not isinstance(text, str) or "::" not in text:
        _fail(path, "spec.entry_point", "expected \"<file>.py::<function>\"")
    file, _, function = text.partition("::")
    parts = Path(file[:-3]).parts if file.endswith(".py") else ()
    if parts and parts[0] == "src":
        parts = parts[1:]
    if not parts or not all(p.isidentifier() for p in parts) or not function.isidentifier():
        _fail(path, "spec.entry_point", f"{text[:200]!r} names no module and function")
    module = importlib.import_module(".".join(parts))
    found = getattr(module, function, None)
    if not callable(found):
        _fail(path, "spec.entry_point", f"{'.'.join(parts)} has no function {function}")
    return found


def _config_name(definition: str, axes: dict[str, int]) -> str:
    text = "_".join([definition] + [f"{k}{v}" for k, v in sorted(axes.items())])
    return re.sub(r"[^a-z0-9_]", "_", text.lower())


def _launch(function, definition: dict, workload: dict):
    axes = {a: s["value"] for a, s in definition["axes"].items() if s["type"] == "const"}
    axes.update(workload.get("axes", {}))

    def launch(torch):
        kwargs: dict[str, Any] = {}
        for name, spec in definition["inputs"].items():
            given = workload["inputs"][name]
            if given["type"] == "scalar":
                kwargs[name] = given["value"]
            else:
                shape = [axes[a] if isinstance(a, str) else a for a in (spec["shape"] or [])]
                kwargs[name] = torch.empty(*shape, dtype=getattr(torch, spec["dtype"]))
        return function(**kwargs)
    return launch


def inventory_configs(root: str | Path) -> dict[str, Config]:
    """One configuration per workload of every Definition under ``root``
    (``*/kernel_definitions/*.json``) that has a cuTile Solution
    (``*/kernel_solutions/*.json``), named after the definition and the
    workload's axes (``olmo3_dual_rms_norm_d64_n3``)."""
    root = Path(root)
    solutions = {}
    for path in sorted(root.glob("**/kernel_solutions/*.json")):
        solution = parse_solution(_read_bytes(path), path)
        if solution.get("spec", {}).get("language") == LANGUAGE:
            solutions[solution.get("definition")] = (solution, path)
    configs: dict[str, Config] = {}
    for path in sorted(root.glob("**/kernel_definitions/*.json")):
        definition = read_definition(path)
        if definition["name"] not in solutions:
            continue
        workloads = path.parent.parent / "kernel_workloads" / definition["name"] / "workload.jsonl"
        if not workloads.is_file():
            continue
        function = entry_point(*solutions[definition["name"]])
        for number, workload in read_workloads(workloads, definition):
            name = _config_name(definition["name"], workload.get("axes", {}))
            if name in configs:
                _fail(workloads, str(number), f"a second workload with the axes of {name}")
            configs[name] = Config(launch=_launch(function, definition, workload),
                                   description=f"{workloads}:{number}")
    return configs
