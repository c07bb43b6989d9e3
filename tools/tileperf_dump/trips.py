"""Where a declared trip count applies: the ``for`` loops of a kernel, named
by function and loop variable.

A key of ``Problem.trips`` is ``[FUNCTION.]VAR[#N][@CALL]``:

- ``k``: every ``for k in ...`` of the kernel's own function and of the
  helpers it calls (Python functions it reaches by name, in any file,
  inlined into it by cuTile), not other kernels' loops in the same file;
  ``while``: every ``while`` loop there (its count: how often its body runs);
- ``_gemm_kernel.k`` or ``tile_sum.j``: the loops of that function only (the
  kernel's or a helper's);
- ``#2``: the second of those loops (nested or not), the kernel's own
  first, then each helper's, each in the order of the source;
- ``@2``: of a helper's loop, only where the helper is inlined at its
  second call site (in the same order), so that a helper called twice can
  have a count per call.

A key that matches no loop is a :class:`TripsError`; the dump step records it
for its configuration, whose test then fails with it (the file's other
configurations are not affected).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

KEY_HELP = "[FUNCTION.]VAR[#N][@CALL]"


class TripsError(ValueError):
    """A declared trip count that names no loop of the kernel."""


@dataclass(frozen=True)
class Scope:
    """A function the kernel compiles (its own or a helper's): its file, its
    name, its ``for`` loops (variable, line) and the calls it makes (name,
    line), all in source order."""
    name: str
    file: str
    loops: tuple[tuple[str, int], ...]
    calls: tuple[tuple[str, int], ...]


def _unwrap(value):
    """The Python function of a ``ct.kernel``, or of a function wrapped by a
    decorator (``@ct.function``, ``functools.wraps``)."""
    value = getattr(value, "_pyfunc", value)
    return inspect.unwrap(value) if inspect.isfunction(value) else value


def _scope(function) -> Scope | None:
    try:
        lines, first = inspect.getsourcelines(function)
        file = str(Path(inspect.getsourcefile(function)).resolve())
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    loops, calls = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            loops.append((node.target.id, node.lineno + first - 1))
        elif isinstance(node, ast.While):  # named by its keyword: no variable can be
            loops.append(("while", node.lineno + first - 1))
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name:
                calls.append((name, node.lineno + first - 1))
    return Scope(function.__name__, file, tuple(sorted(loops, key=lambda l: l[1])),
                 tuple(sorted(calls, key=lambda c: c[1])))


def kernel_scopes(function: Callable) -> list[Scope]:
    """The kernel's function and every Python function it reaches by name
    through its globals (the helpers cuTile inlines), each once, the
    kernel's first."""
    scopes, seen, todo = [], set(), [_unwrap(function)]
    while todo:
        f = todo.pop(0)
        if f in seen or not inspect.isfunction(f):
            continue
        seen.add(f)
        scope = _scope(f)
        if scope is None:
            continue
        scopes.append(scope)
        for name in f.__code__.co_names:
            value = _unwrap(f.__globals__.get(name))
            if inspect.isfunction(value) and value not in seen:
                todo.append(value)
    return scopes


def _parse_key(key: str) -> tuple[str | None, str, int | None, int | None]:
    rest, _, call = key.partition("@")
    rest, _, nth = rest.partition("#")
    function, _, var = rest.rpartition(".")
    numbers = []
    for text in (nth, call):
        if text and not (text.isdigit() and int(text) >= 1):
            raise TripsError(f"trips key {key!r} is not {KEY_HELP} (N and CALL count from 1)")
        numbers.append(int(text) if text else None)
    if not (var.isidentifier() or var == "while") or (function and not function.isidentifier()):
        raise TripsError(f"trips key {key!r} is not {KEY_HELP}")
    return function or None, var, numbers[0], numbers[1]


def _known(scopes: list[Scope]) -> str:
    names = [f"{s.name}.{v}" for s in scopes for v, _ in s.loops]
    return ", ".join(dict.fromkeys(names)) or "none"


def resolve(key: str, scopes: list[Scope]) -> list[dict[str, Any]]:
    """The loops a key names: one entry per file, with its lines and, for a
    key with ``@CALL``, the line the helper is called from."""
    function, var, nth, call = _parse_key(key)
    kernel = scopes[0].name
    chosen = [s for s in scopes if function in (None, s.name)]
    if function and not chosen:
        raise TripsError(f"trips key {key!r}: {function} is not the kernel {kernel} nor a function "
                         f"it calls (loops: {_known(scopes)})")
    loops = [(s.file, line) for s in chosen for v, line in s.loops if v == var]
    where = f"{function}()" if function else f"the kernel {kernel} and the functions it calls"
    statement = "while" if var == "while" else f"for {var} in"
    if not loops:
        raise TripsError(f"trips key {key!r}: no '{statement}' loop in {where} "
                         f"(loops: {_known(scopes)})")
    if nth is not None:
        if nth > len(loops):
            raise TripsError(f"trips key {key!r}: {where} has {len(loops)} '{statement}' loop(s), "
                             f"at lines {', '.join(str(l) for _, l in loops)}")
        loops = [loops[nth - 1]]
    calls = None
    if call is not None:
        if not function or function == kernel:
            raise TripsError(f"trips key {key!r}: @CALL names a call site of a helper: give the "
                             f"helper's name ({KEY_HELP})")
        sites = [(s.file, line) for s in scopes for name, line in s.calls if name == function]
        if call > len(sites):
            raise TripsError(f"trips key {key!r}: {function} is called {len(sites)} time(s) in "
                             f"the kernel {kernel} and the functions it calls")
        calls = [{"file": sites[call - 1][0], "line": sites[call - 1][1]}]
    out: dict[str, dict] = {}
    for file, line in loops:
        entry = out.setdefault(file, {"file": file, "lines": []})
        entry["lines"].append(line)
        if calls:
            entry["calls"] = calls
    return list(out.values())
