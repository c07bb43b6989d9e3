"""What the dump record says about a configuration: its problem (grid,
blocks, trips of each loop, what the launch moves) and its signature (the
identity the gate compares with the baseline's)."""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from cuda.tile.compilation import (ArrayConstraint, ConstantConstraint, ListConstraint, ScalarConstraint,
                                   TupleConstraint)

from tileperf_dump.config import Config, Override, Problem
from tileperf_dump.launch import launch_arrays
from tileperf_dump.trips import TripsError, kernel_scopes, resolve

if TYPE_CHECKING:
    from tileperf_dump.launch import CapturedLaunch


def _check_count(where: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where} must be an integer >= {minimum}, got {value!r}")
    return value


def _trips_record(config: Config, problem: Problem, where: str) -> list[dict]:
    scopes = kernel_scopes(config.kernel._pyfunc)
    trips = []
    for key, count in sorted(problem.trips.items()):
        replaces = isinstance(count, Override)
        count = count.trips if replaces else count
        _check_count(f"{where}.trips[{key!r}]", count, 0)
        try:
            entries = resolve(key, scopes)
        except TripsError as e:
            raise TripsError(f"{where}.trips: {e}") from None
        trips += [{"loop": key, "trips": count, **({"override": True} if replaces else {}), **entry}
                  for entry in entries]
    return trips


def _entry_values(constraint, value, out: list) -> None:
    """The values of one parameter as the kernel's entry takes them: nothing
    for a constant, a scalar's number, an array's pointer (unknown), shape
    and strides, a list's pointer and length, a tuple's or dataclass's items
    in order."""
    if isinstance(constraint, ConstantConstraint):
        return
    if isinstance(constraint, TupleConstraint):
        items = list(value) if isinstance(value, (tuple, list)) else [None] * len(constraint.items)
        for item, v in zip(constraint.items, items + [None] * (len(constraint.items) - len(items))):
            _entry_values(item, v, out)
        return
    if type(constraint).__name__ == "DataclassConstraint":  # cuTile's, not exported
        for f, c in zip(dataclasses.fields(constraint.cls), constraint.fields):
            _entry_values(c, getattr(value, f.name, None), out)
        return
    if isinstance(constraint, ArrayConstraint):
        shape = list(getattr(value, "shape", None) or [None] * constraint.ndim)
        strides = list(value.stride()) if hasattr(value, "stride") else [None] * constraint.ndim
        out += [None] + [_number(v) for v in shape] + [_number(v) for v in strides]
        return
    if isinstance(constraint, ListConstraint):
        out += [None, len(value) if isinstance(value, (list, tuple)) else None]
        return
    if isinstance(constraint, ScalarConstraint):
        out.append(_number(value))
        return
    out.append(None)  # a pointer, a tensor map


def _number(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def entry_arguments(config: Config, values) -> list:
    """The kernel entry's flattened parameters as the launch passes them
    (numbers, and None where a value is a pointer or not a number): what the
    scalar evaluator of the check starts from."""
    out: list = []
    for constraint, value in zip(config.signature().parameters, values):
        _entry_values(constraint, value, out)
    return out


def run_case(case, sizes):
    """``case(torch, **sizes)`` on the fake GPU of the lowest architecture
    (tensors made without a device are on it)."""
    import torch
    from tileperf_dump.archs import arch, lowest_arch
    from tileperf_dump.fake_gpu import fake_gpu
    with fake_gpu(arch(lowest_arch()), default_device=True):
        return case(torch, **sizes)


def problem_record(config: Config, name: str, problem: Problem | None = None,
                   launch: CapturedLaunch | None = None) -> dict | None:
    """The dump record's ``problem``: grid, blocks and each declared trip
    count with the file and lines of the loops it applies to (and the call
    site, for a helper's loop counted per call), and what the launch moves.
    ``problem`` is the configuration's own (for an architecture, when it
    depends on one), ``launch`` the launch its host code made."""
    problem = config.problem if problem is None else problem
    if problem is None and launch is None:
        return None
    where = f"CONFIGS[{name!r}].problem"
    if problem is None:
        problem = Problem(declared_at=("", 0))
    if not isinstance(problem, Problem):
        raise TypeError(f"{where} is not a tileperf_dump.Problem")
    if launch is not None and problem.grid is not None:
        raise ValueError(f"{where} gives a grid, but the configuration's launch gives it: leave it out")
    if problem.grid is None and launch is None:
        raise ValueError(f"{where} gives no grid (and the configuration has no launch to take it from)")
    grid = list(launch.grid) if launch is not None else [
        _check_count(f"{where}.grid", g, 1) for g in problem.grid_dims]
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"{where}.grid must have 1 to 3 dimensions, got {len(grid)}")
    record = {"grid": grid, "blocks": math.prod(grid), "trips": _trips_record(config, problem, where)}
    if problem.declared_at and problem.declared_at[0]:
        record["declared_at"] = {"file": str(problem.declared_at[0]), "line": problem.declared_at[1]}
    record.update(launch_record(config, where, problem, launch))
    return record


def launch_record(config: Config, where: str, problem: Problem | None = None,
                  launch: CapturedLaunch | None = None) -> dict:
    """What the launch moves: its arrays and the bytes of their allocations
    (``bytes``, the floor), from the captured launch, else from ``case`` run
    on the fake GPU (torch's fake tensors; with the grid the case launches);
    ``bytes`` declared by the problem wins. When the case cannot run there,
    the reason (``launch_error``). ``problem``: the configuration's own
    unless given (its problem for one architecture)."""
    problem = config.problem if problem is None else problem
    out: dict = {}
    if launch is not None:
        arrays, floor = launch.arrays()
        out = {"arrays": arrays, "bytes": floor, "args": entry_arguments(config, launch.args)}
    elif config.case is not None:
        try:
            case = run_case(config.case, problem.sizes)
            arrays, floor = launch_arrays(case.args)
            out = {"arrays": arrays, "bytes": floor, "case_grid": list(case.grid),
                   "args": entry_arguments(config, case.args)}
        except Exception as e:  # recorded: the gate then has no floor
            out = {"launch_error": f"{where}.case on the fake GPU: {type(e).__name__}: {e}"}
            out["args_error"] = out["launch_error"]
    else:
        out["args_error"] = f"{where} has no case or launch to record the kernel's arguments from"
    if problem.bytes is not None:
        out["bytes"] = _check_count(f"{where}.bytes", problem.bytes, 0)
        out.pop("launch_error", None)
    return out


def _identity_text(value) -> str:
    """How an identity record writes a constraint field: 'float16', '(8, 1)', 'None'."""
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_identity_text(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if hasattr(value, "bitwidth") and hasattr(value, "name"):  # a cuTile DType
        return value.name
    if hasattr(value, "_by_target"):  # ByTarget: a value per architecture
        per_target = ", ".join(f"{k}: {_identity_text(v)}" for k, v in sorted(value._by_target.items()))
        return f"ByTarget({per_target}; default {value._default!r})"
    return repr(value) if not isinstance(value, str) else value


def _identity_fields(prefix: str, value, out: dict) -> None:
    if dataclasses.is_dataclass(value):
        out[f"{prefix}.kind"] = type(value).__name__
        for f in dataclasses.fields(value):
            _identity_fields(f"{prefix}.{f.name}", getattr(value, f.name), out)
    else:
        out[prefix] = _identity_text(value)


def signature_record(config: Config, bytecode_version: str) -> dict[str, str]:
    """What a configuration's export is, one field per key: the kernel's
    symbol and calling convention, every parameter's constraint (dtype, rank,
    index type, divisibility, strides, aliasing, constant values), the
    kernel's compiler hints and the bytecode version. The gate compares it
    with the baseline's, so that a swapped dtype or a dropped hint is never
    compared as if it were the same kernel."""
    signature = config.signature()
    out = {"symbol": signature.symbol, "calling_convention": repr(signature.calling_convention),
           "bytecode_version": bytecode_version}
    for i, parameter in enumerate(signature.parameters):
        _identity_fields(f"parameters[{i}]", parameter, out)
    for hint, value in config.hints.items():
        out[f"hints.{hint}"] = _identity_text(value)
    return out
