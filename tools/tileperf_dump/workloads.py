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
with fake tensors of the workload's shapes, by the inputs' names. A
malformed file is a ``ValueError`` naming the file and the place in it.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

from tileperf_dump.config import Config

LANGUAGE = "cuda-tile"


def _fail(path: Path, where: str, what: str):
    raise ValueError(f"{path}:{where}: {what}")


def _read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text())
    except OSError as e:
        _fail(path, "0", f"cannot read: {e.strerror}")
    except ValueError as e:
        _fail(path, str(getattr(e, "lineno", 0)), f"not JSON: {e}")
    if not isinstance(value, dict):
        _fail(path, "1", "expected a JSON object")
    return value


def read_definition(path: Path) -> dict:
    """A Definition, checked: its axes, inputs (dtype, shape) and name."""
    d = _read_json(path)
    for key in ("name", "axes", "inputs"):
        if key not in d:
            _fail(path, key, "missing")
    if not isinstance(d["axes"], dict) or not isinstance(d["inputs"], dict):
        _fail(path, "axes", "axes and inputs must be objects")
    for axis, spec in d["axes"].items():
        if not isinstance(spec, dict) or spec.get("type") not in ("const", "var"):
            _fail(path, f"axes.{axis}.type", "expected \"const\" or \"var\"")
        if spec["type"] == "const" and not isinstance(spec.get("value"), int):
            _fail(path, f"axes.{axis}.value", "a const axis needs an integer value")
    for name, spec in d["inputs"].items():
        if not isinstance(spec, dict) or not isinstance(spec.get("dtype"), str):
            _fail(path, f"inputs.{name}.dtype", "expected a dtype name")
        shape = spec.get("shape")
        if shape is not None and not (isinstance(shape, list) and all(
                isinstance(a, int) or a in d["axes"] for a in shape)):
            _fail(path, f"inputs.{name}.shape", f"expected null or a list of axes of {sorted(d['axes'])} "
                                                f"or integers, got {shape!r}")
    return d


def read_workloads(path: Path, definition: dict) -> list[tuple[int, dict]]:
    """(line, workload) of a workload.jsonl, each checked against its definition."""
    out = []
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        _fail(path, "0", f"cannot read: {e.strerror}")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            w = json.loads(line)
        except ValueError as e:
            _fail(path, str(number), f"not JSON: {e}")
        if not isinstance(w, dict) or not isinstance(w.get("axes", {}), dict) \
                or not isinstance(w.get("inputs"), dict):
            _fail(path, str(number), "expected an object with axes and inputs")
        for axis, spec in definition["axes"].items():
            if spec["type"] == "var" and not isinstance(w.get("axes", {}).get(axis), int):
                _fail(path, f"{number}: axes.{axis}", "a var axis of the definition needs an integer value")
        for name in definition["inputs"]:
            given = w["inputs"].get(name)
            if not isinstance(given, dict) or given.get("type") not in ("random", "scalar"):
                _fail(path, f"{number}: inputs.{name}", "expected {\"type\": \"random\"} or "
                                                        "{\"type\": \"scalar\", \"value\": ...}")
            if given["type"] == "scalar" and "value" not in given:
                _fail(path, f"{number}: inputs.{name}.value", "a scalar input needs its value")
        out.append((number, w))
    return out


def entry_point(solution: dict, path: Path):
    """The function a Solution's ``spec.entry_point`` names, imported."""
    text = solution.get("spec", {}).get("entry_point")
    if not isinstance(text, str) or "::" not in text:
        _fail(path, "spec.entry_point", "expected \"<file>.py::<function>\"")
    file, _, function = text.partition("::")
    parts = Path(file).with_suffix("").parts
    if parts and parts[0] == "src":
        parts = parts[1:]
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
        solution = _read_json(path)
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
