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

A kernel file of a library may import packages the gate's machine lacks:
:func:`load_kernel_module` imports those named as ``placeholders`` as
placeholder modules (:mod:`tileperf_dump.placeholders`), and a file inside a
package by its dotted name. ``array(dtype, like=shape)`` states what cuTile's
JIT infers from an array of that shape (:func:`jit_assumptions`).
"""

from __future__ import annotations

import dataclasses
import importlib
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
                                   ListConstraint, ScalarConstraint, export_kernel)

from tileperf_dump.placeholders import (Placeholder, PlaceholderError, describe,
                                        is_placeholder, library_imports)
from tileperf_dump.launch import (Arch, CapturedLaunch, LaunchError, arch, capture_launch,
                                  constant_parameters, kernel_hints, parameter_names)
from tileperf_dump.standin import StandInTorch, launch_arrays
from tileperf_dump.trips import Scope, TripsError, kernel_scopes, resolve

NAME_RE = re.compile(r"[A-Za-z0-9_]+")


JIT_MAX_NDIM = 5  # cuTile's JIT infers no divisibility beyond 5 dimensions


def _disjoint(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether no two elements share an address: in the order of increasing
    stride (then size), every stride is positive and at least the previous
    stride times the previous size."""
    dims = sorted(zip(strides, shape))
    return all(s > 0 for s, _ in dims[:1]) and all(
        s > 0 and s >= ps * pn for (ps, pn), (s, _) in zip(dims, dims[1:]))


def jit_assumptions(dtype, shape: Sequence[int],
                    strides: Sequence[int] | None = None) -> dict[str, Any]:
    """The ``ArrayConstraint`` fields that cuTile's JIT (``ct.launch``) infers
    from an array of this shape and these strides (in elements; default:
    row-major contiguous). Up to 5 dimensions, a dimension is divisible by 16
    when its size is, else by 1, and a size of 1 is a constant; a stride is
    divisible by the elements of 16 bytes when its bytes are, else by 1, and a
    stride of 1 is a constant. The array may alias itself unless its elements
    are disjoint (a broadcast stride of 0 is not). The base address (16 when
    it is aligned, else 1) and the index type (int32) are not part of it."""
    shape = tuple(shape)
    if strides is None:
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
    strides = tuple(strides)
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} do not match shape {shape}")
    per_16_bytes = 128 // dtype.bitwidth if 128 % dtype.bitwidth == 0 else 1
    inferred = len(shape) <= JIT_MAX_NDIM
    return dict(
        shape_constant=tuple(1 if inferred and d == 1 else None for d in shape),
        shape_divisible_by=tuple(16 if inferred and d % 16 == 0 else 1 for d in shape),
        stride_constant=tuple(1 if inferred and s == 1 else None for s in strides),
        stride_divisible_by=tuple(per_16_bytes if inferred and s * dtype.bitwidth % 128 == 0
                                  else 1 for s in strides),
        may_alias_internally=not _disjoint(shape, strides),
    )


def array(dtype, ndim: int | None = None, *, like: Sequence[int] | None = None,
          strides: Sequence[int] | None = None, contiguous: bool | None = None,
          align_bytes: int = 16, shape_divisible_by: int | Sequence[int] | None = None,
          index_dtype=ct.int32, **overrides: Any) -> ArrayConstraint:
    """An ``ArrayConstraint`` with the assumptions a kernel library usually
    guarantees: row-major with a contiguous last dimension, rows and base
    address aligned to ``align_bytes``, no aliasing between arguments, and
    every dimension a multiple of ``shape_divisible_by`` (16).

    ``like=(4096, 1000)`` (with ``strides``, in elements, for a view that is
    not row-major contiguous) instead states per dimension what cuTile's JIT
    infers from an array of that shape (see :func:`jit_assumptions`): the
    configuration of a launch whose sizes are not multiples of 16. Keyword
    ``overrides`` replace any ``ArrayConstraint`` field."""
    if like is not None:
        if contiguous is not None or shape_divisible_by is not None:
            raise TypeError("array(): like= states the divisibility and the strides; "
                            "give contiguous= and shape_divisible_by= without it")
        if ndim is not None and ndim != len(like):
            raise ValueError(f"array(): ndim {ndim} does not match like={tuple(like)}")
        return _array(dtype, len(like), align_bytes, index_dtype,
                      {**jit_assumptions(dtype, like, strides), **overrides})
    if ndim is None:
        raise TypeError("array(): give ndim, or like= with an example shape")
    if strides is not None:
        raise TypeError("array(): strides= describes the example of like=")
    elems = max(1, align_bytes * 8 // dtype.bitwidth)
    fields: dict[str, Any] = dict(shape_divisible_by=16 if shape_divisible_by is None
                                  else shape_divisible_by)
    if contiguous is None or contiguous:
        fields["stride_constant"] = (None,) * (ndim - 1) + (1,)
        fields["stride_divisible_by"] = (elems,) * (ndim - 1) + (1,)
    return _array(dtype, ndim, align_bytes, index_dtype, {**fields, **overrides})


def _array(dtype, ndim: int, align_bytes: int, index_dtype, fields: dict) -> ArrayConstraint:
    return ArrayConstraint(dtype, ndim, **{
        "index_dtype": index_dtype, "stride_lower_bound_incl": 0, "alias_groups": (),
        "may_alias_internally": False, "base_addr_divisible_by": align_bytes, **fields})


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

    ``grid``: blocks per grid dimension (left out when the configuration's
    ``launch`` gives it). ``trips``: trip counts of the kernel's loops per
    execution of the loop, keyed by function and loop variable (see
    :mod:`tileperf_dump.trips`: ``"k"`` gives the count to every ``for k in
    ...`` of the kernel and the helpers it inlines, ``"k#2"`` to the second
    one only, ``"helper.j@2"`` to the loop of ``helper`` where it is inlined
    at its second call). Compiled loops that come from such a statement (the
    producer and consumer loops of a warp-specialised pipeline, say) inherit
    its count. Loops without a declared count are assumed to run the default
    number of times (see README, *Cost model*). ``sizes``: the keyword
    arguments of the configuration's ``case`` that build this launch on a
    GPU. The dump step also runs ``case`` with a stand-in for torch
    (:mod:`tileperf_dump.standin`) to record the arrays the launch passes and
    their bytes, the floor on what the launch moves; ``bytes`` states that
    floor instead, for a case the stand-in cannot run."""
    grid: int | Sequence[int] | None = None
    trips: Mapping[str, int] = field(default_factory=dict)
    sizes: Mapping[str, int] = field(default_factory=dict)
    bytes: int | None = None
    declared_at: tuple[str, int] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.declared_at is None:  # where the configuration file built it, for its errors
            caller = sys._getframe(2)
            object.__setattr__(self, "declared_at", (caller.f_code.co_filename, caller.f_lineno))

    @property
    def grid_dims(self) -> tuple[int, ...]:
        return (self.grid,) if isinstance(self.grid, int) else tuple(self.grid)

    @property
    def blocks(self) -> int:
        return math.prod(self.grid_dims)


@dataclass(frozen=True)
class Target:
    """What a problem that depends on the architecture is given: the
    architecture (``arch.name``, ``arch.sms``, ``arch.capability``) and, for a
    configuration with a ``launch``, the launch its host code made there."""
    arch: Arch
    launch: CapturedLaunch | None = None


def cdiv(a: int, b: int) -> int:
    """Ceiling division, for grids and trip counts."""
    return -(-a // b)


@dataclass(frozen=True)
class Config:
    """One configuration of a kernel: its parameters' constraints (arrays,
    scalars, compile-time constants) in the kernel's order, or a dict of
    them by parameter name; the problem it stands for; and how to check it
    on a GPU (``case(torch)`` builds a small correctness launch,
    ``case(torch, **problem.sizes)`` the launch of ``problem``).

    ``problem`` may be a function of a :class:`Target` that returns the
    problem: one per architecture (a persistent grid sized from the SM
    count).

    ``launch`` instead takes the kernel, its parameters and the grid from the
    library's own host code: ``launch(torch)`` builds tensors with the
    stand-in for torch of each architecture and calls the library's launcher,
    whose ``ct.launch`` is captured (see :mod:`tileperf_dump.launch`; the
    last launch counts, or the last of ``launch_kernel`` when it is given).
    Where the launcher tunes with cuTile's ``exhaustive_search``, ``tune``
    (a function of a configuration of its search space) accepts the one it
    takes, with no measurement. The problem, if any, then gives the trips (``problem=lambda t: Problem(
    trips={"k": cdiv(K, t.launch.constants["BLOCK_K"])})``); its grid is the
    launch's."""
    kernel: Any = None
    params: Sequence[Any] | Mapping[str, Any] | None = None
    symbol: str | None = None
    description: str = ""
    case: Callable[..., Case] | None = None
    problem: Problem | Callable[[Target], Problem] | None = None
    launch: Callable[[Any], Any] | None = None
    tune: Callable[[Any], bool] | None = None
    launch_kernel: Any = None

    def __post_init__(self):
        if self.launch is None and (self.kernel is None or self.params is None):
            raise TypeError("Config() takes a kernel and its params, or launch=")
        if self.launch is not None and self.params is not None:
            raise TypeError("Config(launch=...) takes its parameters from the launch: give no params")

    @property
    def depends_on_arch(self) -> bool:
        return self.launch is not None or callable(self.problem)

    @property
    def kernel_name(self) -> str:
        return self.kernel._pyfunc.__name__

    @property
    def parameter_names(self) -> list[str]:
        return parameter_names(self.kernel)

    def ordered_params(self) -> list[Any]:
        if isinstance(self.params, Mapping):
            return [self.params[name] for name in self.parameter_names]
        return list(self.params)

    @property
    def constants(self) -> dict[str, Any]:
        """The values the configuration gives the kernel's ``ct.Constant``
        parameters, by name."""
        names = set(constant_parameters(self.kernel))
        return {n: v for n, v in zip(self.parameter_names, self.ordered_params()) if n in names}

    @property
    def hints(self) -> dict[str, Any]:
        """The kernel's compiler hints (``occupancy``, ``num_ctas``, ...)."""
        return kernel_hints(self.kernel)

    def signature(self) -> KernelSignature:
        return KernelSignature(self.ordered_params(), CallingConvention.cutile_python_v2(),
                               symbol=self.symbol or self.kernel_name)


def _module_name(path: Path) -> tuple[str, Path | None]:
    """The name a kernel file is imported by, and the folder to import it
    from: inside a package (folders with an ``__init__.py``), its dotted name
    (``mylib.kernels.gemm``) and the folder above the package; else a name of
    its own and no folder."""
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if folder == path.parent or not all(p.isidentifier() for p in parts):
        return "tileperf_kernel_" + re.sub(r"\W", "_", path.stem), None
    return ".".join(parts), folder


def _import(name: str, path: Path, root: Path | None):
    if root is not None:
        module = importlib.import_module(name)
        if Path(module.__file__).resolve() != path:
            raise ImportError(f"{path}: importing it as {name} gave {module.__file__}: another "
                              f"{name.partition('.')[0]} comes first on sys.path")
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # as import does: a failed import leaves no module behind
        raise
    return module


def load_kernel_module(source: str | os.PathLike, placeholders: Sequence[str] = (),
                       bare: Sequence[str] = ()):
    """Imports a kernel file by path and checks its CONFIGS. Its folder goes
    on sys.path, so that it may import helpers beside it; a file inside a
    package is imported by its dotted name with the folder above the package
    on sys.path, so that the package's own imports (absolute or relative)
    work. While it is imported, ``placeholders`` (module names such as
    ``torch``) are placeholder modules and the packages of ``bare`` (such as
    ``flashinfer``) are bare packages, whose ``__init__.py`` is not run (see
    :mod:`tileperf_dump.placeholders`); the launch code that
    :func:`capture_launch` runs later runs the same way."""
    path = Path(source).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{source}: kernel source not found")
    name, root = _module_name(path)
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != str(path):
        for folder in (path.parent, root):
            if folder is not None and str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
        with library_imports(placeholders, bare):
            module = _import(name, path, root)
        module.__tileperf_imports__ = (tuple(placeholders), tuple(bare))
    configs = getattr(module, "CONFIGS", None)
    if not isinstance(configs, dict) or not configs:
        raise ValueError(f"{source}: defines no CONFIGS dict of configurations")
    for key, value in configs.items():
        if not isinstance(key, str) or not NAME_RE.fullmatch(key):
            raise ValueError(f"{source}: configuration name {key!r} must match [A-Za-z0-9_]+")
        if not isinstance(value, Config):
            raise TypeError(f"{source}: CONFIGS[{key!r}] is not a tileperf_dump.Config")
    return module


def _check_count(where: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where} must be an integer >= {minimum}, got {value!r}")
    return value


class ProblemError(ValueError):
    """A problem that does not fit its kernel, located where the
    configuration file declares it: recorded for its configuration alone."""

    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message


def _trips_record(config: Config, problem: Problem, where: str) -> list[dict]:
    scopes = kernel_scopes(config.kernel._pyfunc)
    trips = []
    for key, count in sorted(problem.trips.items()):
        _check_count(f"{where}.trips[{key!r}]", count, 0)
        try:
            entries = resolve(key, scopes)
        except TripsError as e:
            raise TripsError(f"{where}.trips: {e}") from None
        trips += [{"loop": key, "trips": count, **entry} for entry in entries]
    return trips


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
    record.update(launch_record(config, where, problem, launch))
    return record


def launch_record(config: Config, where: str, problem: Problem | None = None,
                  launch: CapturedLaunch | None = None) -> dict:
    """What the launch moves: its arrays and the bytes of their allocations
    (``bytes``, the floor), from the captured launch, else from ``case`` run
    with the stand-in for torch (with the grid the case launches); ``bytes``
    declared by the problem wins. When the case cannot run under the
    stand-in, the reason (``launch_error``). ``problem``: the configuration's
    own unless given (its problem for one architecture)."""
    problem = config.problem if problem is None else problem
    out: dict = {}
    if launch is not None:
        arrays, floor = launch.arrays()
        out = {"arrays": arrays, "bytes": floor}
    elif config.case is not None:
        try:
            case = config.case(StandInTorch(), **problem.sizes)
            arrays, floor = launch_arrays(case.args)
            out = {"arrays": arrays, "bytes": floor, "case_grid": list(case.grid)}
        except Exception as e:  # recorded: the gate then has no floor
            out = {"launch_error": f"{where}.case with the stand-in for torch: {type(e).__name__}: {e}"}
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


class ConfigError(ValueError):
    """A configuration that does not fit its kernel's signature."""


def _short(value) -> str:
    if isinstance(value, (ArrayConstraint, ScalarConstraint)):
        return f"{type(value).__name__}({value.dtype.name})"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _placeholders_in(value) -> list:
    if is_placeholder(value):
        return [value]
    if isinstance(value, (tuple, list)):
        return [p for v in value for p in _placeholders_in(v)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [p for f in dataclasses.fields(value) for p in _placeholders_in(getattr(value, f.name))]
    return []


def _check_arity(config: Config, where: str, kernel: str) -> None:
    names = config.parameter_names
    if isinstance(config.params, Mapping):
        missing = [n for n in names if n not in config.params]
        extra = [repr(k) for k in config.params if k not in names]
        if missing:
            raise ConfigError(f"{where}: no value for {', '.join(missing)} of {kernel}")
        if extra:
            raise ConfigError(f"{where}: {kernel} has no parameter {', '.join(extra)}")
        return
    params = list(config.params)
    counts = f"{where} gives {len(params)} parameters and {kernel} takes {len(names)}"
    if len(params) < len(names):
        raise ConfigError(f"{counts}: no value for {', '.join(names[len(params):])}")
    if len(params) > len(names):
        extra = ", ".join(f"params[{i}] = {_short(params[i])}" for i in range(len(names), len(params)))
        raise ConfigError(f"{counts}: no parameter for {extra}")


def check_parameters(config: Config, where: str) -> None:
    """Stops, naming the parameter, when a configuration no longer fits its
    kernel's signature: a parameter without a value, a value without a
    parameter, a runtime constraint (array, scalar, list) for a
    ``ct.Constant`` parameter, or a placeholder among the values."""
    names = config.parameter_names
    kernel = f"kernel {config.kernel_name}({', '.join(names)})"
    _check_arity(config, where, kernel)
    nodes = config.kernel._annotated_function.parameter_annotations
    for name, node, value in zip(names, nodes, config.ordered_params()):
        for placeholder in _placeholders_in(value):
            raise PlaceholderError(f"{where}: parameter {name} of {kernel} is "
                                   f"{describe(placeholder)}: give the cuTile value (ct.float16 "
                                   f"for torch.float16)")
        if getattr(node, "constant", False) and isinstance(value, _RUNTIME_CONSTRAINTS):
            raise ConfigError(f"{where}: parameter {name} of {kernel} is a ct.Constant, but the "
                              f"configuration gives it {_short(value)}, a runtime value: give "
                              f"the constant itself")


_RUNTIME_CONSTRAINTS = (ArrayConstraint, ScalarConstraint, ListConstraint)


def _kernel_placeholders(function, seen: set | None = None) -> list[str]:
    """'name = torch.float16 (a placeholder: ...)' for each placeholder among
    the globals a kernel's function (or a Python function it calls) names."""
    seen = set() if seen is None else seen
    if function in seen or not inspect.isfunction(function):
        return []
    seen.add(function)
    found = []
    for name in function.__code__.co_names:
        value = function.__globals__.get(name)
        if is_placeholder(value):
            found.append(f"{name} = {describe(value)}")
        else:
            found += _kernel_placeholders(value, seen)
    return found


def preload() -> None:
    """Imports what an export imports on first use (cuTile's compiler, which
    ``export_kernel`` loads lazily), so that processes forked afterwards (the
    batch of ``run_dump.py``) share it instead of importing it each."""
    importlib.import_module("cuda.tile._compile")


def _export(config: Config, where: str, bytecode_version: str) -> bytes:
    """One configuration's bytecode; cuTile's error about compiling a
    placeholder names the placeholders the kernel uses."""
    buf = io.BytesIO()
    try:
        export_kernel(config.kernel, [config.signature()], buf,
                      output_format="tileir_bytecode", bytecode_version=bytecode_version)
        return buf.getvalue()
    except Exception as e:
        if f"{Placeholder.__module__}.{Placeholder.__qualname__}" not in str(e):
            raise
        used = "; ".join(_kernel_placeholders(config.kernel._pyfunc)) or "none found by name"
        raise PlaceholderError(f"{where}: the kernel compiles a placeholder where cuTile needs "
                               f"the real value ({used}):\n{e}") from e


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


@dataclass
class _ForArch:
    """One architecture's export of a configuration (``arch`` None: the one
    export of a configuration that does not depend on the architecture)."""
    arch: str | None
    config: Config
    problem: dict | None = None
    problem_error: dict | None = None
    signature: dict | None = None
    bytecode: bytes = b""
    seconds: float = 0.0


def _for_arch(module, config: Config, name: str, arch_name: str | None) -> _ForArch:
    """The configuration as exported for one architecture: the kernel and
    parameters of its launch there, its problem there; a problem that does
    not fit the kernel is recorded as the configuration's error."""
    target = arch(arch_name) if arch_name else None
    captured, problem = None, config.problem
    where = f"{module.__file__}: CONFIGS[{name!r}]"
    if config.launch is not None:
        imports = getattr(module, "__tileperf_imports__", ((), ()))
        try:
            captured = capture_launch(config.launch, target, imports, config.launch_kernel, config.tune)
            params = captured.params()
        except Exception as e:  # this configuration's error alone, located
            return _ForArch(arch_name, config, problem_error=_launch_error(e, module, name, arch_name))
        config = dataclasses.replace(config, kernel=captured.kernel, params=params, launch=None,
                                     problem=None, tune=None, launch_kernel=None)
    out = _ForArch(arch_name, config)
    check_parameters(config, where)
    try:
        if callable(problem):
            problem = problem(Target(target, captured))
        out.problem = problem_record(config, name, problem, captured) if (
            problem is not None or captured is not None) else None
    except (ValueError, TypeError) as e:
        file, line = getattr(problem, "declared_at", None) or (module.__file__, 0)
        out.problem_error = {"file": file, "line": line, "message": str(e)}
    return out


def _launch_error(error: Exception, module, name: str, arch_name: str) -> dict:
    """Where and why a configuration's launch failed: the line of the
    configuration file that called into the library, the library's line
    that raised."""
    from tileperf_dump.manifest import raised_at
    bare = getattr(module, "__tileperf_imports__", ((), ()))[1]
    file, line = module.__file__, 0
    tb = error.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == Path(module.__file__).resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return {"file": file, "line": line, "message": f"CONFIGS[{name!r}].launch for {arch_name}: "
            f"{type(error).__name__}: {error}{raised_at(error, bare)}"}


def _archs_needed(config: Config, archs: Sequence[str], where: str) -> list[str | None]:
    if not config.depends_on_arch:
        return [None]
    if not archs:
        raise ConfigError(f"{where}: the configuration depends on the architecture (a launch, or "
                          f"a problem of the target): the dump step needs the architectures "
                          f"(--tileperf-archs)")
    return list(archs)


def _arch_entry(export: _ForArch, base: _ForArch, name: str) -> dict:
    entry: dict = {}
    if export.signature is not None and export.signature != base.signature:
        entry["signature"] = export.signature
    if export.problem is not None:
        entry["problem"] = export.problem
    if export.problem_error is not None:
        entry["problem_error"] = export.problem_error
    if export.signature is not None and export.bytecode != base.bytecode:
        entry["bytecode"] = f"{name}.{export.arch}.tileirbc"
    return entry


def dump_config(module, name: str, out_dir: str | os.PathLike, bytecode_version: str,
                archs: Sequence[str] = ()) -> Path:
    """Exports configuration ``name`` to ``<out_dir>/<name>.tileirbc`` and
    records what made it in ``<name>.tileirbc.json``. A configuration that
    depends on the architecture (its launch, or its problem) is exported for
    each of ``archs``: the record holds each one's problem and signature
    under ``archs``, and an architecture whose bytecode differs from the
    first's (constants of its launch) gets ``<name>.<arch>.tileirbc``."""
    config = get_config(module, name)
    where = f"{module.__file__}: CONFIGS[{name!r}]"
    exports = [_for_arch(module, config, name, a) for a in _archs_needed(config, archs, where)]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for export in exports:
        if export.config.kernel is None:  # its launch failed: nothing to export
            continue
        start = time.perf_counter()
        export.bytecode = _export(export.config, where, bytecode_version)
        export.seconds = time.perf_counter() - start
        export.signature = signature_record(export.config, bytecode_version)
    base = next((e for e in exports if e.signature is not None), exports[0])
    target = out / f"{name}.tileirbc"
    if base.signature is None:  # no architecture's launch ran: the record says why
        _write_atomic(out / f"{name}.tileirbc.json", (json.dumps(
            {"config": name, "problem_error": base.problem_error,
             "archs": {e.arch: {"problem_error": e.problem_error} for e in exports}},
            indent=2, sort_keys=True) + "\n").encode())
        target.unlink(missing_ok=True)
        return target
    _write_atomic(target, base.bytecode)
    record = {
        "cuda_tile": ct.__version__,
        "bytecode_version": bytecode_version,
        "config": name,
        "kernel": base.config.kernel_name,
        "symbol": base.config.symbol or base.config.kernel_name,
        "source": str(Path(module.__file__).resolve()),
        "seconds": round(sum(e.seconds for e in exports), 4),
        "signature": base.signature,
    }
    if base.problem is not None:
        record["problem"] = base.problem
    if base.problem_error is not None:
        record["problem_error"] = base.problem_error
    if base.arch is not None:
        record["archs"] = {e.arch: _arch_entry(e, base, name) for e in exports}
        for e in exports:
            if "bytecode" in record["archs"][e.arch]:
                _write_atomic(out / record["archs"][e.arch]["bytecode"], e.bytecode)
    _write_atomic(out / f"{name}.tileirbc.json", (json.dumps(record, indent=2, sort_keys=True) + "\n").encode())
    return target
