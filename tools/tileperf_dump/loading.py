"""Importing a kernel file by path and checking its CONFIGS
(:func:`load_kernel_module`, :func:`get_config`)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Sequence

from tileperf_dump.config import Config
from tileperf_dump.paths import NAME_PATTERN, NAME_RE
from tileperf_dump.placeholders import library_imports

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


def standin_torch(target=None):
    """The stand-in for torch of an architecture (``launch.Arch``; None: the
    lowest one known), as a library imports it."""
    from tileperf_dump.launch import arch, lowest_arch
    from tileperf_dump.standin import StandInTorch
    target = target or arch(lowest_arch())
    return StandInTorch(multiprocessors=target.sms, capability=target.capability,
                        part=target.part, arch=target.name)


def load_kernel_module(source: str | os.PathLike, placeholders: Sequence[str] = (),
                       bare: Sequence[str] = (), target=None):
    """Imports a kernel file by path and checks its CONFIGS. Its folder goes
    on sys.path, so that it may import helpers beside it; a file inside a
    package is imported by its dotted name with the folder above the package
    on sys.path, so that the package's own imports (absolute or relative)
    work. While it is imported, ``placeholders`` (module names such as
    ``torch``) are placeholder modules and the packages of ``bare`` (such as
    ``flashinfer``) are bare packages, whose ``__init__.py`` is not run (see
    :mod:`tileperf_dump.placeholders`); the launch code that
    :func:`capture_launch` runs later runs the same way. Where ``torch`` is
    a placeholder, ``import torch`` gives the stand-in for torch of
    ``target`` (an architecture, ``launch.Arch``; by default the lowest
    known), which the launches of this import then run with: a library
    imported for one architecture is not launched for another
    (:func:`reload_for`)."""
    path = Path(source).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{source}: kernel source not found")
    name, root = _module_name(path)
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != str(path):
        for folder in (path.parent, root):
            if folder is not None and str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
        torch = standin_torch(target) if "torch" in placeholders else None
        before = set(sys.modules)
        with library_imports(placeholders, bare, torch.modules if torch is not None else None):
            module = _import(name, path, root)
        module.__tileperf_imports__ = (tuple(placeholders), tuple(bare))
        module.__tileperf_torch__ = torch
        module.__tileperf_modules__ = sorted(set(sys.modules) - before)
    configs = getattr(module, "CONFIGS", None)
    if not isinstance(configs, dict) or not configs:
        raise ValueError(f"{source}: defines no CONFIGS dict of configurations")
    for key, value in configs.items():
        if not isinstance(key, str) or not NAME_RE.fullmatch(key):
            raise ValueError(f"{source}: configuration name {key!r} must match {NAME_PATTERN}")
        if not isinstance(value, Config):
            raise TypeError(f"{source}: CONFIGS[{key!r}] is not a tileperf_dump.Config")
    return module


def get_config(module, name: str) -> Config:
    configs = module.CONFIGS
    if name not in configs:
        known = ", ".join(sorted(configs))
        raise KeyError(f"{module.__file__}: no configuration {name!r} in CONFIGS (defined: {known})")
    return configs[name]


def reload_for(module, target):
    """The kernel file of ``module`` imported anew for architecture
    ``target``, with every module its import brought in (the library's)
    imported anew: nothing the library set up at import time for another
    architecture remains. Meant for a process of the architecture's own
    (the dump step forks one per architecture), as it replaces modules in
    ``sys.modules``."""
    for name in getattr(module, "__tileperf_modules__", [module.__name__]):
        sys.modules.pop(name, None)
    placeholders, bare = getattr(module, "__tileperf_imports__", ((), ()))
    return load_kernel_module(module.__file__, placeholders, bare, target)
