"""A launch taken from a library's own host code, without a GPU.

:func:`capture_launch` calls a function (the configuration's ``launch``)
with torch on the fake GPU of one architecture (:mod:`tileperf_dump.fake_gpu`):
torch's fake tensors on a fake ``cuda`` device whose queries answer with
the architecture's SM count, compute capability and memory. That function
builds tensors and calls the library's launcher as an application would;
while it runs, ``ct.launch`` records what it was asked to launch (the grid,
the kernel with its hints, the arguments) instead of launching. The
configuration's kernel, parameters and grid are then the launcher's own:
a launcher that doubles its grid or picks other tile sizes is followed
with no arithmetic copied out of it, and every shape, dtype and stride it
computes is torch's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import cuda.tile as ct
from cuda.tile.compilation import ListConstraint, ScalarConstraint

from tileperf_dump.archs import Arch, arch, lowest_arch  # noqa: F401 - arch: the package's export
from tileperf_dump.placeholders import describe, is_placeholder, library_imports

INT32_MAX = 2**31 - 1


class LaunchError(RuntimeError):
    """The host code made no launch, or one the gate cannot describe."""


# cuTile's name of a dtype where it differs from torch's.
CT_NAMES = {"bool": "bool_"}


def is_tensor(value) -> bool:
    """Whether ``value`` is a torch tensor (without importing torch: a
    process that never imported it has none)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def dtype_name(dtype) -> str:
    """'float16' of torch.float16."""
    return str(dtype).removeprefix("torch.")


def array_record(value) -> dict | None:
    """What the launch record keeps of an argument that is a tensor: its
    shape, strides and dtype, and the bytes of the allocation it views."""
    if not is_tensor(value):
        return None
    return {"shape": list(value.shape), "strides": list(value.stride()), "dtype": dtype_name(value.dtype),
            "bytes": value.untyped_storage().nbytes()}


def launch_arrays(args: Sequence[Any]) -> tuple[list[dict], int]:
    """The array arguments of a launch (with their parameter index) and the
    bytes of the distinct allocations they view: the floor on what the
    launch moves, each array read or written once."""
    arrays, seen, floor = [], set(), 0
    for index, arg in enumerate(args):
        for value in arg if isinstance(arg, (list, tuple)) else (arg,):  # a list of arrays too
            record = array_record(value)
            if record is None:
                continue
            arrays.append({"parameter": index, **record})
            storage = value.untyped_storage()._cdata
            if storage not in seen:
                seen.add(storage)
                floor += record["bytes"]
    return arrays, floor


def kernel_hints(kernel) -> dict[str, Any]:
    """The compiler hints a ``ct.kernel`` carries (``occupancy``, ``num_ctas``,
    ...), by name: those of the decorator, replaced by ``replace_hints``."""
    options = kernel._compiler_options
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def parameter_names(kernel) -> list[str]:
    return list(kernel._annotated_function.pysig.parameters)


def constant_parameters(kernel) -> list[str]:
    """The names of a kernel's ``ct.Constant`` parameters."""
    nodes = kernel._annotated_function.parameter_annotations
    return [n for n, node in zip(parameter_names(kernel), nodes) if getattr(node, "constant", False)]


@dataclass(frozen=True)
class CapturedLaunch:
    """What one ``ct.launch`` of the host code asked for: the grid (padded to
    three dimensions, as ``ct.launch`` pads it), the kernel and the arguments
    in parameter order, for the architecture it ran for."""
    arch: Arch
    grid: tuple[int, ...]
    kernel: Any
    args: tuple

    @property
    def constants(self) -> dict[str, Any]:
        """The values of the kernel's ``ct.Constant`` parameters, by name."""
        names = set(constant_parameters(self.kernel))
        return {n: v for n, v in zip(parameter_names(self.kernel), self.args) if n in names}

    @property
    def hints(self) -> dict[str, Any]:
        return kernel_hints(self.kernel)

    @property
    def blocks(self) -> int:
        out = 1
        for g in self.grid:
            out *= g
        return out

    def arrays(self) -> tuple[list[dict], int]:
        return launch_arrays(self.args)

    def params(self) -> list[Any]:
        """One constraint per parameter, as ``ct.launch`` would compile them."""
        constants = set(constant_parameters(self.kernel))
        return [_constraint(name, value, name in constants)
                for name, value in zip(parameter_names(self.kernel), self.args)]


def _ct_dtype(dtype):
    name = dtype_name(dtype)
    found = getattr(ct, CT_NAMES.get(name, name), None)
    if found is None:
        raise LaunchError(f"torch.{name} has no cuTile dtype")
    return found


def _is_dtype(value) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.dtype)


def _constraint(name: str, value, constant: bool):
    from tileperf_dump import array  # the one description of an array's assumptions
    if is_tensor(value):
        if constant:
            raise LaunchError(f"parameter {name} is a ct.Constant, but the launch passes a tensor")
        if value.device.type != "cuda":
            raise LaunchError(f"parameter {name} is a tensor on {value.device}, not on the GPU: a kernel "
                              f"is launched with GPU tensors (make it with device='cuda')")
        return array(_ct_dtype(value.dtype), like=tuple(value.shape), strides=value.stride())
    if isinstance(value, (list, tuple)) and value and all(is_tensor(v) for v in value):
        elements = {repr(_constraint(name, v, False)): _constraint(name, v, False) for v in value}
        if len(elements) > 1:
            raise LaunchError(f"parameter {name}: the launch passes a list of arrays that differ in "
                              f"dtype, rank or divisibility, which one constraint cannot describe")
        return ListConstraint(next(iter(elements.values())), alias_groups=(), elements_may_alias=False)
    if _is_dtype(value):
        return _ct_dtype(value)
    if constant:
        return value
    if isinstance(value, bool):
        return ScalarConstraint(ct.bool_)
    if isinstance(value, int):
        return ScalarConstraint(ct.int32 if -INT32_MAX - 1 <= value <= INT32_MAX else ct.int64)
    if isinstance(value, float):
        return ScalarConstraint(ct.float32)
    raise LaunchError(f"parameter {name}: the launch passes {type(value).__name__} {value!r}, "
                      f"which the gate cannot describe")


def _grid(grid) -> tuple[int, ...]:
    dims = (grid,) if isinstance(grid, int) else tuple(grid)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) and d >= 1 for d in dims):
        raise LaunchError(f"ct.launch was given the grid {grid!r}: 1 to 3 positive integers")
    return dims + (1,) * (3 - len(dims))


def _recording_launches(into: list):
    """``ct.launch`` records (grid, kernel, args) into ``into`` instead of
    launching, also where a module bound it by name (``from cuda.tile
    import launch``)."""
    def launch(stream, grid, kernel, kernel_args, /, **options):
        into.append((_grid(grid), kernel, tuple(kernel_args)))

    return _rebound(ct.launch, launch, [(ct, "launch")])


def _written_by(made: list, value) -> bool:
    """Whether ``value`` is a tensor that views the memory of an array a
    recorded launch was given."""
    if not is_tensor(value):
        return False
    storage = value.untyped_storage()._cdata
    return any(is_tensor(a) and a.untyped_storage()._cdata == storage
               for _, _, args in made for arg in args for a in (arg if isinstance(arg, (list, tuple)) else (arg,)))


@contextlib.contextmanager
def _launch_results_are_finite(made: list) -> Iterator[None]:
    """The arrays that recorded launches were given hold what a correct
    kernel writes: no NaN, no infinity. ``isnan``, ``isinf`` and
    ``isfinite`` of such an array are known (a constant), so that a library
    that checks a tuning trial's output before it takes the configuration
    (FlashInfer's batched GEMM) takes the one the gate answered its search
    with; of any other tensor they are torch's (whose values a fake tensor
    does not hold)."""
    import torch
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    from tileperf_dump.fake_gpu import fake_mode

    def known(real_op, value: bool):
        def op(input, *args, **kwargs):
            if not _written_by(made, input):
                return real_op(input, *args, **kwargs)
            with unset_fake_temporarily():
                constant = torch.full(tuple(input.shape), value, dtype=torch.bool, device="cpu")
            return fake_mode().fake_tensor_converter.from_real_tensor(fake_mode(), constant, make_constant=True)
        return op

    ops = {"isnan": False, "isinf": False, "isfinite": True}
    with contextlib.ExitStack() as stack:
        for owner in (torch, torch.Tensor):
            saved = {name: getattr(owner, name) for name in ops}
            for name, value in ops.items():
                setattr(owner, name, known(saved[name], value))
            stack.callback(lambda owner=owner, saved=saved: [setattr(owner, k, v) for k, v in saved.items()])
        yield


def accepts(tune: Callable, config, target: Arch) -> bool:
    """Whether ``tune`` accepts ``config``: ``tune(config)``, or
    ``tune(config, target)`` for a function of two parameters (an answer
    per architecture)."""
    import inspect
    try:
        params = [p for p in inspect.signature(tune).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        params = []
    return bool(tune(config, target) if len(params) >= 2 else tune(config))


def _chosen(space: Sequence, tune: Callable | None, target: Arch):
    """The configuration of a tuning search space that ``tune`` accepts."""
    space = list(space)
    if tune is None:
        raise LaunchError(f"the launch tunes over {len(space)} configuration(s) for {target.name}: "
                          f"give the Config tune=, a function that accepts the one to take "
                          f"(the first is {space[0]!r})" if space else "an empty search space")
    for config in space:
        if accepts(tune, config, target):
            return config
    raise LaunchError(f"tune= accepts none of the {len(space)} configuration(s) the launch tunes "
                      f"over for {target.name}: {', '.join(map(repr, space[:4]))}"
                      f"{', ...' if len(space) > 4 else ''}")


@contextlib.contextmanager
def _choosing_tunes(tune: Callable | None, target: Arch) -> Iterator[None]:
    """``cuda.tile.tune.exhaustive_search`` measures nothing: it answers that
    the configuration ``tune`` accepts was the fastest (also where a module
    bound it by name), so that the host code launches it."""
    from cuda.tile import tune as tuning

    real = tuning.exhaustive_search

    def exhaustive_search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, **options):
        best = tuning.Measurement(config=_chosen(search_space, tune, target), mean_us=1.0,
                                  num_samples=1, error_margin_us=0.0)
        return tuning.TuningResult(best=best, successes=[best], failures=[])

    with _rebound(real, exhaustive_search, [(tuning, "exhaustive_search")]):
        yield


@contextlib.contextmanager
def _rebound(real, replacement, owners: list) -> Iterator[None]:
    """``replacement`` wherever a module binds ``real`` (and in ``owners``)."""
    bound = [(m, k) for m in list(sys.modules.values())
             for k, v in list(getattr(m, "__dict__", {}).items()) if v is real] + owners
    for m, k in bound:
        setattr(m, k, replacement)
    try:
        yield
    finally:
        for m, k in bound:
            setattr(m, k, real)


def capture_launch(launch: Callable[[Any], Any], target: Arch, imports=((), ()),
                   kernel=None, tune: Callable | None = None, imported_for: str | None = None) -> CapturedLaunch:
    """Runs ``launch(torch)`` on the fake GPU of ``target`` (tensors made
    without a device are on it, as under ``torch.device("cuda")``) and
    returns the ``ct.launch`` it made: the last one (tuning probes come
    first), or the last of ``kernel`` when it is given (the host code
    launches several kernels). Where the host code tunes with cuTile's
    ``exhaustive_search``, the configuration ``tune`` accepts is the one
    found fastest. ``imports`` are the placeholders and bare packages the
    kernel file was imported with (``module.__tileperf_imports__``), and
    ``imported_for`` the architecture it was imported for
    (``module.__tileperf_arch__``), which must be ``target``: what a library
    set up at import time belongs to one architecture."""
    import torch
    from tileperf_dump.fake_gpu import fake_gpu
    if imported_for is not None and imported_for != target.name:
        raise LaunchError(f"the library was imported for {imported_for}, not {target.name}: each "
                          f"architecture's launches run in a process of its own")
    made: list = []
    placeholders, bare = imports
    with library_imports(placeholders, bare), fake_gpu(target, default_device=True), \
            _recording_launches(made), _choosing_tunes(tune, target), _launch_results_are_finite(made):
        result = launch(torch)
    launched = sorted({getattr(getattr(m[1], "_pyfunc", None), "__name__", repr(m[1])) for m in made})
    if kernel is not None:
        pyfunc = getattr(kernel, "_pyfunc", kernel)
        made = [m for m in made if getattr(m[1], "_pyfunc", None) is pyfunc]
    if not made:
        which = f" of {getattr(getattr(kernel, '_pyfunc', kernel), '__name__', kernel)}" if kernel is not None else ""
        hint = f" (it launched {', '.join(launched)})" if launched else ""
        if is_placeholder(result):
            hint += (f": it returned {describe(result)}, so what it called stands for something "
                     f"not imported here")
        raise LaunchError(f"the launch function made no ct.launch{which} for {target.name}{hint}")
    grid, k, args = made[-1]
    if not hasattr(k, "_annotated_function"):
        raise LaunchError(f"ct.launch was given {k!r}, not a ct.kernel")
    if len(args) != len(parameter_names(k)):
        raise LaunchError(f"ct.launch of {k._pyfunc.__name__} was given {len(args)} arguments for "
                          f"{len(parameter_names(k))} parameters")
    return CapturedLaunch(target, grid, k, args)
