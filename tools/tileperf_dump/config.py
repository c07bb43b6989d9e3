"""The configuration of a kernel and the launch it stands for: :class:`Config`,
:class:`Problem`, :class:`Case`, :class:`Target` and :func:`cdiv`. Importing
this module imports no cuTile; the methods that build cuTile objects
(:meth:`Config.signature`) import it when they run."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

if TYPE_CHECKING:  # for the annotations alone: importing cuTile waits for a method that needs it
    from cuda.tile.compilation import KernelSignature
    from tileperf_dump.launch import Arch, CapturedLaunch

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
    number of times (see docs/design/loops-and-cost.md). ``sizes``: the keyword
    arguments of the configuration's ``case`` that build this launch on a
    GPU. The dump step also runs ``case`` on the fake GPU (torch's fake
    tensors, :mod:`tileperf_dump.fake_gpu`) to record the arrays the launch
    passes and their bytes, the floor on what the launch moves; ``bytes``
    states that floor instead, for a case that cannot run there."""
    grid: int | Sequence[int] | None = None
    trips: Mapping[str, "int | Override"] = field(default_factory=dict)
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


@dataclass(frozen=True)
class Override:
    """A declared trip count that replaces the one the check computes from
    the kernel (``trips={"k": override(64)}``); see :func:`override`."""
    trips: int


def override(trips: int) -> Override:
    """Declares a loop's trip count to replace the computed one. A plain
    count is for a loop whose bound comes from memory; one that disagrees
    with the computed count is a stale declaration, an error of its
    configuration."""
    return Override(trips)


def cdiv(a: int, b: int) -> int:
    """Ceiling division, for grids and trip counts."""
    return -(-a // b)


def _builder(frame) -> tuple[Callable, dict[str, Any]] | None:
    """The module-level function running in ``frame`` and its arguments'
    values there, when a function of a configuration file is (not a
    module's body, a lambda, a nested function or tileperf's own code)."""
    code = frame.f_code
    function = frame.f_globals.get(code.co_name)
    if getattr(function, "__code__", None) is not code:
        return None
    module = frame.f_globals.get("__name__", "")
    if module == "dataclasses" or module.startswith("tileperf_dump."):
        return None
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return function, {n: frame.f_locals[n] for n in names if n in frame.f_locals}


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
    library's own host code: ``launch(torch)`` builds tensors with torch on
    the fake GPU of each architecture (:mod:`tileperf_dump.fake_gpu`) and
    calls the library's launcher, whose ``ct.launch`` is captured (see :mod:`tileperf_dump.launch`; the
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
        # The function that built this configuration, for a tuning variant
        # that builds it again with other arguments (tileperf_dump.variants).
        object.__setattr__(self, "built_by", _builder(sys._getframe(2)))
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
        from tileperf_dump.launch import parameter_names
        return parameter_names(self.kernel)

    def ordered_params(self) -> list[Any]:
        if isinstance(self.params, Mapping):
            return [self.params[name] for name in self.parameter_names]
        return list(self.params)

    @property
    def constants(self) -> dict[str, Any]:
        """The values the configuration gives the kernel's ``ct.Constant``
        parameters, by name."""
        from tileperf_dump.launch import constant_parameters
        names = set(constant_parameters(self.kernel))
        return {n: v for n, v in zip(self.parameter_names, self.ordered_params()) if n in names}

    @property
    def hints(self) -> dict[str, Any]:
        """The kernel's compiler hints (``occupancy``, ``num_ctas``, ...)."""
        from tileperf_dump.launch import kernel_hints
        return kernel_hints(self.kernel)

    def signature(self) -> "KernelSignature":
        from cuda.tile.compilation import CallingConvention, KernelSignature
        return KernelSignature(self.ordered_params(), CallingConvention.cutile_python_v2(),
                               symbol=self.symbol or self.kernel_name)
