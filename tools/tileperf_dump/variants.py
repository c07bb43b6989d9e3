"""What-if variants of one configuration, made at export without editing a
file: the analysis guide's experiments, each a change of what cuTile emits
or of the configuration it is given.

- ``isolate``: the operations of one costly class at one source line (a
  transcendental, a square root, a division, a power, a cast, a reduction)
  replaced by a cheap operation of the same shape and dtype (``x * 0.5``;
  ``a * b`` for ``a / b`` and ``a ** b``; a constant of the result's type
  for a cast or a reduction, whose operand is then unused).
- ``exp2``: ``exp(x)`` at one line emitted as ``exp2(x * log2(e))``.
- ``token_order``: cuTile's token-ordering pass off (what
  ``CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER=1`` does): memory operations are
  then ordered only by their data; correct only where no load reads what
  another operation of the kernel stores.
- ``hint``: the kernel's compiler hints (``occupancy``, ``num_ctas``,
  ``num_worker_warps``) replaced.
- ``tune``: the configuration built again by the function that built it
  (``_config(ct.float16, 1024)``) with one argument that sets a
  ``ct.Constant`` (a tile size) halved or doubled; the grid and trips are
  then that function's for the new value. A variant that changes the
  problem (the arrays' shapes) is dropped.

The code generation of cuTile 1.7.0 is what is patched (each operation
class's ``generate_bytecode``); the patches hold only inside
:func:`emitting`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

TRANSCENDENTAL = ("exp", "exp2", "log", "log2", "sin", "cos", "tan", "sinh", "cosh", "tanh")
ROOTS = ("sqrt", "rsqrt")
DIVISIONS = ("truediv", "floordiv", "c_mod")

# The classes the isolation variants take, in the order they are listed.
CLASSES = ("transcendental", "square root", "division", "power", "cast", "reduction")

CHEAP = {
    "transcendental": "x * 0.5",
    "square root": "x * 0.5",
    "division": "a * b",
    "power": "a * b",
    "cast": "a constant of the result's dtype (its operand unused)",
    "reduction": "a constant of the result's shape and dtype (its operand unused)",
}


@dataclass(frozen=True, order=True)
class Site:
    """Where operations of one class are emitted: the class, the file and
    line (of the kernel, or of a helper it inlines)."""
    cls: str
    file: str
    line: int


@dataclass
class Census:
    """What the base export emitted of each class, by site: the operations
    (``tanh``, ``truediv``, ``astype float32->bfloat16``) and how many."""
    ops: dict[Site, dict[str, int]] = field(default_factory=dict)

    def add(self, site: Site, op: str) -> None:
        by_op = self.ops.setdefault(site, {})
        by_op[op] = by_op.get(op, 0) + 1


def _op_classes():
    from cuda.tile._ir.arithmetic_ops import (RawBinaryArithmeticOperation, RawFPowIOperation,
                                              TileAsType, Unary)
    from cuda.tile._ir.ops import TileReduce
    return Unary, RawBinaryArithmeticOperation, RawFPowIOperation, TileAsType, TileReduce


def _where(op) -> tuple[str, int]:
    loc = getattr(op, "loc", None)
    return (str(getattr(loc, "filename", None) or "<unknown>"), int(getattr(loc, "line", 0) or 0))


def _dtype_name(ty) -> str:
    dtype = getattr(ty, "dtype", None)
    return getattr(dtype, "name", None) or str(dtype)


def classify(op, ctx) -> tuple[str, str] | None:
    """The class and name of an operation the isolation takes, else None."""
    from cuda.tile._datatype import is_float
    unary, binary, fpowi, astype, reduce_ = _op_classes()
    if isinstance(op, unary):
        if op.fn in TRANSCENDENTAL:
            return "transcendental", op.fn
        if op.fn in ROOTS:
            return "square root", op.fn
        return None
    if isinstance(op, binary):
        if not is_float(getattr(ctx.typeof(op.result_var), "dtype", None)):
            return None
        if op.fn in DIVISIONS:
            return "division", op.fn
        if op.fn == "pow":
            return "power", "pow"
        if op.fn == "atan2":
            return "transcendental", "atan2"
        return None
    if isinstance(op, fpowi):
        return "power", "powi"
    if isinstance(op, astype):
        source, target = ctx.typeof(op.x), ctx.typeof(op.result_var)
        floats = is_float(getattr(source, "dtype", None)) or is_float(getattr(target, "dtype", None))
        if not floats or _dtype_name(source) == _dtype_name(target):
            return None  # an integer cast (index arithmetic) is not a conversion's cost
        return "cast", f"astype {_dtype_name(source)}->{_dtype_name(target)}"
    if isinstance(op, reduce_):
        return "reduction", f"reduce axis {op.axis}"
    return None


def _mul(ctx, result_var, lhs, rhs):
    import cuda.tile._bytecode as bc
    from cuda.tile._ir.ops_utils import rounding_mode_to_bytecode
    from cuda.tile._numeric_semantics import RoundingMode
    return bc.encode_MulFOp(ctx.builder, ctx.typeid_of(result_var), lhs, rhs,
                            rounding_mode=rounding_mode_to_bytecode[RoundingMode.RN], flush_to_zero=False)


def cheap(op, ctx, cls: str):
    """The cheap operation of the same shape and dtype that stands for ``op``."""
    unary, binary, fpowi, astype, reduce_ = _op_classes()
    if isinstance(op, unary):
        return _mul(ctx, op.result_var, ctx.get_value(op.operand), ctx.constant(0.5, ctx.typeof(op.operand)))
    if isinstance(op, binary):
        return _mul(ctx, op.result_var, ctx.get_value(op.lhs), ctx.get_value(op.rhs))
    if isinstance(op, fpowi):
        base = ctx.get_value(op.base)
        return _mul(ctx, op.result_var, base, base)
    if isinstance(op, astype):
        return ctx.constant(0, ctx.typeof(op.result_var))
    if isinstance(op, reduce_):
        return tuple(ctx.constant(identity, ctx.typeof(v)) for identity, v in zip(op.identities, op.result_vars))
    raise TypeError(f"no cheap form of {type(op).__name__} ({cls})")


def exp_as_exp2(op, ctx):
    """``exp(x)`` emitted as ``exp2(x * log2(e))``."""
    import cuda.tile._bytecode as bc
    scaled = _mul(ctx, op.result_var, ctx.get_value(op.operand),
                  ctx.constant(1.0 / math.log(2.0), ctx.typeof(op.operand)))
    return bc.encode_Exp2Op(ctx.builder, ctx.typeid_of(op.result_var), scaled, flush_to_zero=False)


Emit = Callable[[Any, Any], Any]  # (operation, context) -> its value, or None: cuTile's own


@contextlib.contextmanager
def emitting(emit: Emit) -> Iterator[None]:
    """While inside: each operation of the classes the variants take is
    first shown to ``emit``, whose value (not None) replaces cuTile's own
    bytecode for it."""
    classes = _op_classes()
    originals = {cls: cls.__dict__["generate_bytecode"] for cls in classes}

    def wrapped(original):
        def generate_bytecode(self, ctx):
            value = emit(self, ctx)
            return original(self, ctx) if value is None else value
        return generate_bytecode

    try:
        for cls, original in originals.items():
            cls.generate_bytecode = wrapped(original)
        yield
    finally:
        for cls, original in originals.items():
            cls.generate_bytecode = original


def census_emit(census: Census) -> Emit:
    def emit(op, ctx):
        found = classify(op, ctx)
        if found is not None:
            file, line = _where(op)
            census.add(Site(found[0], file, line), found[1])
        return None
    return emit


def isolate_emit(site: Site, replaced: list[str]) -> Emit:
    def emit(op, ctx):
        found = classify(op, ctx)
        if found is None or Site(found[0], *_where(op)) != site:
            return None
        replaced.append(found[1])
        return cheap(op, ctx, site.cls)
    return emit


def exp2_emit(file: str, line: int, replaced: list[str]) -> Emit:
    unary = _op_classes()[0]

    def emit(op, ctx):
        if isinstance(op, unary) and op.fn == "exp" and _where(op) == (file, line):
            replaced.append("exp")
            return exp_as_exp2(op, ctx)
        return None
    return emit


@contextlib.contextmanager
def token_order_off() -> Iterator[None]:
    """cuTile's token-ordering pass off, as its testing variable does."""
    import cuda.tile._compile as compile_
    before = compile_.CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER
    compile_.CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER = True
    try:
        yield
    finally:
        compile_.CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER = before


# ---------------------------------------------------------------------------
# Tuning: the configuration built again with other arguments


def builder_of(config) -> tuple[Callable, dict[str, Any]] | None:
    """The function that built ``config`` and the arguments it had, when a
    module-level function of plain parameters did (``Config.built_by``)."""
    built = getattr(config, "built_by", None)
    if built is None:
        return None
    function, arguments = built
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY) for p in parameters):
        return None
    return function, dict(arguments)


def _power_of_two(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0 and value & (value - 1) == 0


def signature_constants(signature: dict | None) -> dict[str, str]:
    """The constants an export gave its kernel, from its signature record:
    each ``ct.Constant`` parameter's value and each hint, by name
    (``parameters[10]``, ``hints.occupancy``)."""
    signature = signature or {}
    out = {}
    for key, value in signature.items():
        if key.endswith(".value") and signature.get(key[:-len(".value")] + ".kind") == "ConstantConstraint":
            out[key[:-len(".value")]] = value
        elif key.startswith("hints."):
            out[key] = value
    return out


def tuning_arguments(config, signature: dict | None) -> dict[str, int]:
    """The builder's arguments whose value is a power of two that the
    export gave the kernel as a constant or a hint (``signature``: its
    record): those a tuning variant halves or doubles. A configuration
    whose launch is a library's own is built again the same way: the
    library's launch then chooses with the new value."""
    built = builder_of(config)
    if built is None:
        return {}
    given = set()
    for value in signature_constants(signature).values():
        if str(value).isdigit() and _power_of_two(int(value)):
            given.add(int(value))
    return {name: value for name, value in built[1].items() if _power_of_two(value) and value in given}


def rebuilt(config, name: str, value: int):
    """The configuration its builder makes with argument ``name`` = ``value``."""
    function, arguments = builder_of(config)
    arguments[name] = value
    return function(**arguments)


def hint_neighbours(hints: dict[str, Any], bytecode_version: str = "13.4") -> list[dict[str, int]]:
    """The hints a variant tries: occupancy 1, 2 and 4 beside the current
    (halved and doubled when set), two CTAs per block where one is used,
    the worker warps of a warp-specialised kernel."""
    tried: list[dict[str, int]] = []
    occupancy = hints.get("occupancy")
    values = [1, 2, 4] if not isinstance(occupancy, int) else [occupancy // 2, occupancy * 2]
    tried += [{"occupancy": v} for v in values if 1 <= v <= 32 and v != occupancy]
    if hints.get("num_ctas") in (None, 1):
        tried.append({"num_ctas": 2})
    # Warps of a warp-specialised kernel's CUDA-core groups: 4 and 8 when
    # unset, halved and doubled when set; other values than 4 and 8 need
    # bytecode (and tileiras) 13.5 or later.
    workers = hints.get("num_worker_warps")
    values = [4, 8] if not isinstance(workers, int) else [workers // 2, workers * 2]
    newer = tuple(int(p) for p in bytecode_version.split(".")[:2] if p.isdigit()) >= (13, 5)
    tried += [{"num_worker_warps": v} for v in values
              if 1 <= v <= 32 and v != workers and (newer or v in (4, 8))]
    return tried


def where_text(file: str, line: int) -> str:
    """``gelu.py:21``, or ``flashinfer/norm.py:88`` for a module of a package:
    the file keyed by the path from the folder above its top-level package,
    as the check keys a cubin's source lines (``source_key``)."""
    path = Path(file)
    parts = [path.name]
    folder = path.parent
    while len(parts) <= 64 and (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return f"{'/'.join(parts)}:{line}"


def describe_hints(hints: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in hints.items())


def with_hints(config, hints: dict[str, int]):
    return dataclasses.replace(config, kernel=config.kernel.replace_hints(**hints))
