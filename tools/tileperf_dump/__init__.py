"""Configurations of the cuTile kernels tileperf watches, and their export.

A kernel file defines its ``@ct.kernel`` functions and a ``CONFIGS`` dict that
maps each configuration name ([A-Za-z0-9_]+) to a :class:`Config`: the kernel
and one constraint per kernel parameter, as ``KernelSignature`` takes them.
The dump step (``dump_driver.py``, run through pytest) exports each
configuration ahead of time to architecture-independent TileIR bytecode; it
needs neither a GPU nor a CUDA driver.

For the correctness tests (``kernels/test_correctness.py``), a Config also
carries ``case``: a function that, given the ``torch`` module, builds a
:class:`Case` on the current CUDA device.

A Config may declare the :class:`Problem` it stands for: the grid of a real
launch and the trip counts of its loops. The static cost estimate of the
whole launch (``cost.launch``) is the per-block estimate times the blocks,
with those trips; the GPU timing builds the same launch with
``case(torch, **problem.sizes)``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import io
import math
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import cuda.tile as ct
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature,
                                   export_kernel)

NAME_RE = re.compile(r"[A-Za-z0-9_]+")


def array(dtype, ndim: int, *, contiguous: bool = True, align_bytes: int = 16,
          shape_divisible_by: int | Sequence[int] = 16, index_dtype=ct.int32,
          **overrides: Any) -> ArrayConstraint:
    """An ``ArrayConstraint`` with the assumptions a kernel library usually
    guarantees: row-major with a contiguous last dimension, rows and base
    address aligned to ``align_bytes``, no aliasing between arguments, and
    every dimension a multiple of ``shape_divisible_by``. Keyword
    ``overrides`` replace any ``ArrayConstraint`` field."""
    elems = max(1, align_bytes * 8 // dtype.bitwidth)
    fields: dict[str, Any] = dict(
        index_dtype=index_dtype,
        stride_lower_bound_incl=0,
        alias_groups=(),
        may_alias_internally=False,
        shape_divisible_by=shape_divisible_by,
        base_addr_divisible_by=align_bytes,
    )
    if contiguous:
        fields["stride_constant"] = (None,) * (ndim - 1) + (1,)
        fields["stride_divisible_by"] = (elems,) * (ndim - 1) + (1,)
    fields.update(overrides)
    return ArrayConstraint(dtype, ndim, **fields)


def torch_dtype(torch, dtype):
    """The torch dtype of a cuTile dtype (float16 -> torch.float16, ...)."""
    return getattr(torch, dtype.name)


@dataclass
class Case:
    """One launch of a configuration: the grid, the kernel arguments in
    parameter order (GPU tensors, scalars and the configuration's constants),
    and a function that returns, for each output argument (by index), the
    expected values computed in higher precision than the kernel's. The
    expectation is computed only when a correctness test asks for it, so
    that a timing run can build launches too large to check."""
    grid: tuple[int, ...]
    args: tuple
    expected: Callable[[], dict[int, Any]]
    rtol: float = 1e-2
    atol: float = 1e-2


@dataclass(frozen=True)
class Problem:
    """The launch a configuration stands for.

    ``grid``: blocks per grid dimension. ``trips``: trip counts of the
    kernel's loops per execution of the loop, keyed by the loop variable of
    a ``for`` statement in the kernel's file: ``"k"`` gives the count to
    every ``for k in ...`` of the file, ``"k#2"`` to the second one only.
    Compiled loops that come from such a statement (the producer and
    consumer loops of a warp-specialised pipeline, say) inherit its count.
    Loops without a declared count are assumed to run the default number of
    times (see README, *Cost model*). ``sizes``: the keyword arguments of the
    configuration's ``case`` that build this launch on a GPU."""
    grid: int | Sequence[int]
    trips: Mapping[str, int] = field(default_factory=dict)
    sizes: Mapping[str, int] = field(default_factory=dict)

    @property
    def grid_dims(self) -> tuple[int, ...]:
        return (self.grid,) if isinstance(self.grid, int) else tuple(self.grid)

    @property
    def blocks(self) -> int:
        return math.prod(self.grid_dims)


def cdiv(a: int, b: int) -> int:
    """Ceiling division, for grids and trip counts."""
    return -(-a // b)


@dataclass(frozen=True)
class Config:
    """One configuration of a kernel: its parameters' constraints (arrays,
    scalars, compile-time constants), the problem it stands for, and how to
    check it on a GPU (``case(torch)`` builds a small correctness launch,
    ``case(torch, **problem.sizes)`` the launch of ``problem``)."""
    kernel: Any
    params: Sequence[Any]
    symbol: str | None = None
    description: str = ""
    case: Callable[..., Case] | None = None
    problem: Problem | None = None

    @property
    def kernel_name(self) -> str:
        return self.kernel._pyfunc.__name__

    def signature(self) -> KernelSignature:
        return KernelSignature(list(self.params), CallingConvention.cutile_python_v2(),
                               symbol=self.symbol or self.kernel_name)


def load_kernel_module(source: str | os.PathLike):
    """Imports a kernel file by path (its folder goes on sys.path, so that it
    may import helpers beside it) and checks its CONFIGS."""
    path = Path(source).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{source}: kernel source not found")
    name = "tileperf_kernel_" + re.sub(r"\W", "_", path.stem)
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    configs = getattr(module, "CONFIGS", None)
    if not isinstance(configs, dict) or not configs:
        raise ValueError(f"{source}: defines no CONFIGS dict of configurations")
    for key, value in configs.items():
        if not isinstance(key, str) or not NAME_RE.fullmatch(key):
            raise ValueError(f"{source}: configuration name {key!r} must match [A-Za-z0-9_]+")
        if not isinstance(value, Config):
            raise TypeError(f"{source}: CONFIGS[{key!r}] is not a tileperf_dump.Config")
    return module


def _loop_lines(path: Path) -> dict[str, list[int]]:
    """Lines of the ``for <name> in`` statements of a Python file, by name."""
    lines: dict[str, list[int]] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            lines.setdefault(node.target.id, []).append(node.lineno)
    return {k: sorted(v) for k, v in lines.items()}


def _check_count(where: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where} must be an integer >= {minimum}, got {value!r}")
    return value


def problem_record(config: Config, name: str) -> dict | None:
    """The dump record's ``problem``: grid, blocks and each declared trip
    count with the file and lines of the loops it applies to."""
    problem = config.problem
    if problem is None:
        return None
    where = f"CONFIGS[{name!r}].problem"
    if not isinstance(problem, Problem):
        raise TypeError(f"{where} is not a tileperf_dump.Problem")
    grid = [_check_count(f"{where}.grid", g, 1) for g in problem.grid_dims]
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"{where}.grid must have 1 to 3 dimensions, got {len(grid)}")
    source = Path(inspect.getsourcefile(config.kernel._pyfunc)).resolve()
    loops = _loop_lines(source)
    trips = []
    for key, count in sorted(problem.trips.items()):
        _check_count(f"{where}.trips[{key!r}]", count, 0)
        var, _, nth = key.partition("#")
        lines = loops.get(var, [])
        if not lines:
            known = ", ".join(sorted(loops)) or "none"
            raise ValueError(f"{source}: {where}.trips names loop variable {var!r}, but no "
                             f"'for {var} in' loop is in this file (loop variables: {known})")
        if nth:
            if not nth.isdigit() or not 1 <= int(nth) <= len(lines):
                raise ValueError(f"{source}: {where}.trips key {key!r}: the file has "
                                 f"{len(lines)} 'for {var} in' loop(s), at lines "
                                 f"{', '.join(map(str, lines))}")
            lines = [lines[int(nth) - 1]]
        trips.append({"loop": key, "file": str(source), "lines": lines, "trips": count})
    return {"grid": grid, "blocks": math.prod(grid), "trips": trips}


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
    options = config.kernel._compiler_options
    for f in dataclasses.fields(options):
        out[f"hints.{f.name}"] = _identity_text(getattr(options, f.name))
    return out


def get_config(module, name: str) -> Config:
    configs = module.CONFIGS
    if name not in configs:
        known = ", ".join(sorted(configs))
        raise KeyError(f"{module.__file__}: no configuration {name!r} in CONFIGS (defined: {known})")
    return configs[name]


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".tmp.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def dump_config(module, name: str, out_dir: str | os.PathLike, bytecode_version: str) -> Path:
    """Exports configuration ``name`` to ``<out_dir>/<name>.tileirbc`` and
    records what made it in ``<name>.tileirbc.json``."""
    config = get_config(module, name)
    problem = problem_record(config, name)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}.tileirbc"
    start = time.perf_counter()
    buf = io.BytesIO()
    export_kernel(config.kernel, [config.signature()], buf,
                  output_format="tileir_bytecode", bytecode_version=bytecode_version)
    seconds = time.perf_counter() - start
    _write_atomic(target, buf.getvalue())
    record = {
        "cuda_tile": ct.__version__,
        "bytecode_version": bytecode_version,
        "config": name,
        "kernel": config.kernel_name,
        "symbol": config.symbol or config.kernel_name,
        "source": str(Path(module.__file__).resolve()),
        "seconds": round(seconds, 4),
    }
    record["signature"] = signature_record(config, bytecode_version)
    if problem is not None:
        record["problem"] = problem
    _write_atomic(out / f"{name}.tileirbc.json", (json.dumps(record, indent=2, sort_keys=True) + "\n").encode())
    return target
