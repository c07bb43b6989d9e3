"""Importing a kernel file by path and checking its CONFIGS
(:func:`load_kernel_module`, :func:`get_config`)."""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
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


class _TorchImport(importlib.abc.MetaPathFinder):
    """While a kernel file is imported: when its import brings in torch,
    torch is imported as usual, then the fake GPU of ``target`` is set up
    (``fake_gpu``) for the rest of the import, so that what the library asks
    of the device at import time is answered; ``modules`` are then the
    modules torch's own import brought in (torch's, and the packages it
    imports), which stay when the library is imported anew. Where torch is
    imported already, the fake GPU is set up at once."""

    def __init__(self, target, stack: contextlib.ExitStack):
        self.target, self.stack = target, stack
        self.modules: set[str] = set()
        if "torch" in sys.modules:
            self._on_gpu()

    def _on_gpu(self) -> None:
        from tileperf_dump.fake_gpu import fake_gpu
        self.stack.enter_context(fake_gpu(self.target))

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" or "torch" in sys.modules:
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1:]:
            spec = getattr(finder, "find_spec", lambda *a: None)(fullname, path, target)
            if spec is not None:
                spec.loader = _ThenOnGpu(spec.loader, self)
                return spec
        return None


class _ThenOnGpu(importlib.abc.Loader):
    """torch's own loader, followed by the fake GPU (see :class:`_TorchImport`)."""

    def __init__(self, loader, hook: _TorchImport):
        self.loader, self.hook = loader, hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader  # torch sees its own loader
        before = set(sys.modules)
        self.loader.exec_module(module)
        self.hook._on_gpu()
        self.hook.modules = set(sys.modules) - before | {module.__name__}


def _shared(name: str, torch_import: set[str]) -> bool:
    """Whether a module stays when a library is imported anew for another
    architecture: torch's, and those torch's own import brought in."""
    return name == "torch" or name.startswith("torch.") or name in torch_import


def load_kernel_module(source: str | os.PathLike, placeholders: Sequence[str] = (),
                       bare: Sequence[str] = (), target=None):
    """Imports a kernel file by path and checks its CONFIGS. Its folder goes
    on sys.path, so that it may import helpers beside it; a file inside a
    package is imported by its dotted name with the folder above the package
    on sys.path, so that the package's own imports (absolute or relative)
    work. While it is imported, ``placeholders`` (module names such as
    ``pynvml``) are placeholder modules and the packages of ``bare`` (such
    as ``flashinfer``) are bare packages, whose ``__init__.py`` is not run
    (see :mod:`tileperf_dump.placeholders`); the launch code that
    :func:`capture_launch` runs later runs the same way. Once the import
    brings in torch, the rest of it runs on the fake GPU of ``target`` (an
    architecture, ``archs.Arch``; by default the lowest known), whose
    device queries the library's import-time code then sees: a library
    imported for one architecture is not launched for another
    (:func:`reload_for`). A file whose import never reaches torch never
    imports it."""
    if "torch" in placeholders or any(p.startswith("torch.") for p in placeholders):
        raise ValueError(f"{source}: torch is not a placeholder module: the dump step runs launch code "
                         f"against torch itself (remove it from PLACEHOLDER_MODULES)")
    path = Path(source).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{source}: kernel source not found")
    name, root = _module_name(path)
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != str(path):
        from tileperf_dump.archs import arch, lowest_arch
        target = target or arch(lowest_arch())
        for folder in (path.parent, root):
            if folder is not None and str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
        before = set(sys.modules)
        with contextlib.ExitStack() as stack, library_imports(placeholders, bare):
            hook = _TorchImport(target, stack)
            sys.meta_path.insert(0, hook)
            try:
                module = _import(name, path, root)
            finally:
                sys.meta_path.remove(hook)
        module.__tileperf_imports__ = (tuple(placeholders), tuple(bare))
        module.__tileperf_arch__ = target.name
        module.__tileperf_modules__ = sorted(n for n in set(sys.modules) - before if not _shared(n, hook.modules))
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
