"""The export of a configuration to TileIR bytecode and its dump record
(:func:`dump_config`), after the checks that it fits its kernel
(:func:`check_parameters`)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import io
import os
import pickle
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import cuda.tile as ct
from cuda.tile.compilation import (ArrayConstraint, ListConstraint, ScalarConstraint,
                                   export_kernel)

from tileperf_dump import paths
from tileperf_dump.config import Config, Target
from tileperf_dump.files import write_atomic, write_json
from tileperf_dump.library import library_of
from tileperf_dump.guards import ProcessExit, StepTimeout, exits_raised, time_limit
from tileperf_dump.launch import arch, capture_launch
from tileperf_dump.loading import get_config, reload_for
from tileperf_dump.placeholders import Placeholder, PlaceholderError, PlaceholderModule, describe, is_placeholder
from tileperf_dump.records import problem_record, signature_record

# The version of the dump record (<config>.tileirbc.json) this step writes
# and the tileperf command reads (metrics/dump_record.h), which refuses any
# other: a field removed, or holding another type, is a new version on both
# sides; any change of the fields captures tests/fixtures/dump_record/ again
# (docs/reference/dump-record.md).
RECORD_FORMAT = "tileperf-dump-record/1"


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
    """'name = gpulib.float16 (a placeholder: ...)' for each placeholder among
    the globals a kernel's function (or a Python function it calls) names;
    of a placeholder module, the attributes of it the function names
    ('gpulib.float16 (a placeholder: ...)')."""
    seen = set() if seen is None else seen
    if function in seen or not inspect.isfunction(function):
        return []
    seen.add(function)
    found = []
    names = function.__code__.co_names
    for name in names:
        value = function.__globals__.get(name)
        if isinstance(value, PlaceholderModule):
            used = [describe(p) for path, p in value._tileperf_children.items()
                    if path.rpartition(".")[2] in names]
            found += used or [f"{name} = {describe(value)}"]
        elif is_placeholder(value):
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


@dataclass
class _ForArch:
    """One architecture's export of a configuration (``arch`` None: the one
    export of a configuration that does not depend on the architecture):
    plain data, so that a process of the architecture's own can hand it back."""
    arch: str | None
    kernel_name: str | None = None
    symbol: str | None = None
    problem: dict | None = None
    problem_error: dict | None = None
    signature: dict | None = None
    library: dict | None = None
    bytecode: bytes = b""
    seconds: float = 0.0


def _for_arch(module, config: Config, name: str, arch_name: str | None,
              bytecode_version: str, adjust=None) -> _ForArch:
    """The configuration as exported for one architecture: the kernel and
    parameters of its launch there, its problem there, its bytecode. A
    launch that fails, a problem that does not fit the kernel and a kernel
    that does not compile are recorded as the configuration's error there,
    located, so that the file's other configurations export. ``adjust``
    (a what-if variant's, :mod:`tileperf_dump.variants`) changes the
    configuration once its launch is taken."""
    target = arch(arch_name) if arch_name else None
    captured, problem = None, config.problem
    where = f"{module.__file__}: CONFIGS[{name!r}]"
    if config.launch is not None:
        imports = getattr(module, "__tileperf_imports__", ((), ()))
        try:
            with exits_raised(), time_limit(launch_timeout(), f"CONFIGS[{name!r}].launch"):
                captured = capture_launch(config.launch, target, imports, config.launch_kernel, config.tune,
                                          getattr(module, "__tileperf_arch__", None))
            params = captured.params()
        except (Exception, SystemExit, ProcessExit, StepTimeout) as e:  # this configuration's error alone, located
            return _ForArch(arch_name, problem_error=_launch_error(e, module, name, arch_name))
        config = dataclasses.replace(config, kernel=captured.kernel, params=params, launch=None,
                                     problem=None, tune=None, launch_kernel=None)
    if adjust is not None:
        config = adjust(config)
    out = _ForArch(arch_name, config.kernel_name, config.symbol or config.kernel_name,
                   library=library_of(config.kernel))
    check_parameters(config, where)
    try:
        if callable(problem):
            problem = problem(Target(target, captured))
        out.problem = problem_record(config, name, problem, captured) if (
            problem is not None or captured is not None) else None
    except (ValueError, TypeError) as e:
        file, line = getattr(problem, "declared_at", None) or (module.__file__, 0)
        out.problem_error = {"file": file, "line": line, "message": str(e)}
    start = time.perf_counter()
    try:
        out.bytecode = _export(config, where, bytecode_version)
    except Exception as e:  # noqa: BLE001 - any compile error is this configuration's
        out.problem_error = _compile_error(e, module, name, arch_name)
        out.bytecode = b""
        return out
    out.seconds = time.perf_counter() - start
    out.signature = signature_record(config, bytecode_version)
    return out


def _compile_error(error: Exception, module, name: str, arch_name: str | None) -> dict:
    """Where and why a configuration's kernel did not compile: the kernel's
    line cuTile names (in the library's file), else the last line of the
    project's or the library's code the error came through."""
    from tileperf_dump.manifest import raised_at
    loc = getattr(error, "loc", None)
    file, line = getattr(loc, "filename", None), getattr(loc, "line", 0)
    for_arch = f" for {arch_name}" if arch_name else ""
    message = getattr(error, "message", None) or str(error)
    if not file:
        file, line = module.__file__, 0
        message += raised_at(error, getattr(module, "__tileperf_imports__", ((), ()))[1])
    return {"file": str(file), "line": int(line or 0),
            "message": f"CONFIGS[{name!r}] does not compile{for_arch}: {type(error).__name__}: "
                       f"{message.strip()}"}


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
    what = f"the launch called sys.exit({error.code!r})" if isinstance(error, SystemExit) else \
        f"{type(error).__name__}: {error}"
    if isinstance(error, (SystemExit, ProcessExit, StepTimeout)):  # the stack, where the message cannot say it
        traceback.print_exception(error, file=sys.stderr)
    return {"file": file, "line": line, "message": f"CONFIGS[{name!r}].launch for {arch_name}: "
            f"{what}{raised_at(error, bare)}"}


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
        entry["bytecode"] = paths.file_name("arch_bytecode", name, export.arch)
    return entry


def dump_config(module, name: str, out_dir: str | os.PathLike, bytecode_version: str,
                archs: Sequence[str] = (), prepared: dict | None = None) -> Path:
    """Exports configuration ``name`` to ``<out_dir>/<name>.tileirbc`` and
    records what made it in ``<name>.tileirbc.json``. A configuration that
    depends on the architecture (its launch, or its problem) is exported for
    each of ``archs``, each in a process of its own that imports the kernel
    file (and its library) anew for that architecture (``export_per_arch``;
    ``prepared``: its results for this file, computed once for all its
    configurations): the record holds each one's problem and signature
    under ``archs``, and an architecture whose bytecode differs from the
    first's (constants of its launch) gets ``<name>.<arch>.tileirbc``."""
    config = get_config(module, name)
    where = f"{module.__file__}: CONFIGS[{name!r}]"
    needed = _archs_needed(config, archs, where)
    if needed == [None]:
        exports = [_for_arch(module, config, name, None, bytecode_version)]
    else:
        if prepared is None or any((name, a) not in prepared for a in needed):
            prepared = export_per_arch(module, [name], needed, bytecode_version)
        exports = [prepared[(name, a)] for a in needed]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    base = next((e for e in exports if e.signature is not None), exports[0])
    target = paths.in_kernel_dir(out, "bytecode", name)
    record_path = paths.in_kernel_dir(out, "dump_record", name)
    if base.signature is None:  # no architecture's export ran: the record says why
        record = {"format": RECORD_FORMAT, "config": name, "problem_error": base.problem_error}
        if base.arch is not None:
            record["archs"] = {e.arch: {"problem_error": e.problem_error} for e in exports}
        write_json(record_path, record, indent=2, sort_keys=True)
        target.unlink(missing_ok=True)
        return target
    write_atomic(target, base.bytecode)
    record = export_record(module, base, name, bytecode_version, sum(e.seconds for e in exports))
    if base.arch is not None:
        record["archs"] = {e.arch: _arch_entry(e, base, name) for e in exports}
        for e in exports:
            if "bytecode" in record["archs"][e.arch]:
                write_atomic(out / record["archs"][e.arch]["bytecode"], e.bytecode)
    write_json(record_path, record, indent=2, sort_keys=True)
    return target


def export_record(module, export: _ForArch, name: str, bytecode_version: str, seconds: float) -> dict:
    """The dump record of one export (the first architecture's, of a
    configuration exported per architecture)."""
    record = {
        "format": RECORD_FORMAT,
        "cuda_tile": ct.__version__,
        "bytecode_version": bytecode_version,
        "config": name,
        "kernel": export.kernel_name,
        "symbol": export.symbol,
        "source": str(Path(module.__file__).resolve()),
        "seconds": round(seconds, 4),
        "signature": export.signature,
    }
    if export.library:
        record["library"] = export.library
    if export.problem is not None:
        record["problem"] = export.problem
    if export.problem_error is not None:
        record["problem_error"] = export.problem_error
    return record


def launch_timeout() -> float:
    """Seconds a configuration's launch may take (``TILEPERF_LAUNCH_TIMEOUT``,
    300 by default; 0: no limit)."""
    try:
        return float(os.environ.get("TILEPERF_LAUNCH_TIMEOUT", 300))
    except ValueError:
        return 300.0


def export_per_arch(module, names: Sequence[str], archs: Sequence[str],
                    bytecode_version: str) -> dict[tuple[str, str], _ForArch]:
    """Each configuration of ``names`` that depends on the architecture,
    exported for each of ``archs``, by (name, arch). Each architecture runs
    in a process of its own, forked from this one, that imports the kernel
    file and every module its import brought in anew for that architecture
    (``loading.reload_for``): what a library caches at import time or on its
    first launch (a tuning cache keyed on the device name, a device query in
    a module global) cannot carry from one architecture to another. A
    process that ends while it exports a configuration (its launch called
    ``os._exit`` past the guard, a crash, a hang past the time limit) makes
    that configuration's error, and the configurations after it are exported
    by a fresh process; one that ends before its first (the import) makes the
    error of every configuration left for that architecture."""
    from tileperf_dump.per_arch import in_processes

    left = {a: list(names) for a in archs}
    exports: dict[tuple[str, str], _ForArch] = {}
    with tempfile.TemporaryDirectory(prefix="tileperf-progress-") as folder:
        progress = Path(folder)

        def work(arch_name: str) -> dict[str, _ForArch]:
            fresh = reload_for(module, arch(arch_name))
            out = {}
            for name in left[arch_name]:
                (progress / arch_name).write_text(name)  # what a process that dies was exporting
                config = get_config(fresh, name)
                if config.depends_on_arch:
                    out[name] = _for_arch(fresh, config, name, arch_name, bytecode_version)
                    (progress / f"{arch_name}.{len(out)}").write_bytes(pickle.dumps((name, out[name])))
            return out

        def failed(arch_name: str, why: str) -> dict[str, _ForArch]:
            marker = progress / arch_name
            current = marker.read_text() if marker.is_file() else None
            marker.unlink(missing_ok=True)
            if current is None:  # before the first configuration: the file's import
                error = {"file": str(module.__file__), "line": 0, "message": f"the export for {arch_name} {why}"}
                return {n: _ForArch(arch_name, problem_error=dict(error)) for n in left[arch_name]}
            done = sorted(progress.glob(f"{arch_name}.*"), key=lambda p: int(p.suffix[1:]))
            out = dict(pickle.loads(p.read_bytes()) for p in done)  # what it exported before it died
            for p in done:
                p.unlink()
            error = {"file": str(module.__file__), "line": 0,
                     "message": f"CONFIGS[{current!r}] for {arch_name}: the process exporting it {why}"}
            out.update({current: _ForArch(arch_name, problem_error=error), _RESUME: left[arch_name].index(current) + 1})
            return out

        while any(left.values()):
            results = in_processes(work, [a for a in archs if left[a]], failed)
            for a, by_name in results.items():
                for done in progress.glob(f"{a}.*"):
                    done.unlink()
                resume = by_name.pop(_RESUME, None)
                exports.update({(name, a): export for name, export in by_name.items()})
                left[a] = left[a][resume:] if resume is not None else []
    return exports


_RESUME = "\0resume"  # in a failed architecture's results: where a fresh process goes on
