"""Placeholder modules: importing a kernel file whose modules import packages
the gate machine lacks (a library's optional dependencies: its JIT's
runtime, a GPU monitoring library, progress bars).

While :func:`placeholder_modules` is active, ``import pynvml`` (and
``import tvm_ffi.core as core``, ``from tqdm import tqdm``) gives a
placeholder module instead of the real one, whether or not the real one is
installed. Every attribute of a placeholder, every call of it and every
subscript gives another placeholder, named by the path it was reached by
(``pynvml.nvmlInit(...)``), so that what a module does with the package at
import time evaluates: constants in tables, annotations, decorators, classes
deriving from the package's classes (which behave like the placeholder). A
placeholder is never mistaken for a real value: using one as a number, a
truth value, an iterable, in a comparison or in arithmetic raises
:class:`PlaceholderError` naming its path and module. The dump step refuses a
placeholder among a configuration's parameters or in the kernel it compiles.
torch is never a placeholder: launch code runs against torch itself
(:mod:`tileperf_dump.fake_gpu`).

The placeholders leave ``sys.modules`` when the import ends (the modules that
imported them keep their references), and whatever was there before is put
back.

:func:`bare_packages` imports a library's packages without running their
``__init__.py`` (see :class:`BarePackage`); :func:`library_imports` is both.
"""

from __future__ import annotations

import abc
import contextlib
import importlib.abc
import importlib.machinery
import re
import sys
import types
from pathlib import Path
from typing import Iterable, Iterator

MODULE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class PlaceholderError(RuntimeError):
    """A placeholder was used where the real package's value is needed."""


def describe(value) -> str:
    """'torch.float16 (a placeholder: the module 'torch' is not installed here)'."""
    path = object.__getattribute__(value, "_tileperf_path")
    module = object.__getattribute__(value, "_tileperf_module")
    return f"{path} (a placeholder: the module {module!r} is not installed here)"


def _refuse(what: str):
    def refused(self, *args, **kwargs):
        raise PlaceholderError(f"{describe(self)} cannot be {what}")
    return refused


def _child(parent, path: str) -> "Placeholder":
    children = object.__getattribute__(parent, "_tileperf_children")
    if path not in children:
        children[path] = Placeholder(path, object.__getattribute__(parent, "_tileperf_module"))
    return children[path]


def _attribute(parent, name: str):
    """The placeholder for ``parent.name``; dunder names other than
    ``__version__`` are missing, as protocols (``__wrapped__``,
    ``__dlpack__``) expect of an object that does not provide them."""
    if name.startswith("__") and name.endswith("__") and name != "__version__":
        raise AttributeError(name)
    return _child(parent, f"{parent._tileperf_path}.{name}")


class Placeholder:
    """A value reached through a placeholder module (see the module's doc)."""

    __slots__ = ("_tileperf_path", "_tileperf_module", "_tileperf_children", "_tileperf_base")

    def __init__(self, path: str, module: str):
        self._tileperf_path = path
        self._tileperf_module = module
        self._tileperf_children: dict[str, Placeholder] = {}
        self._tileperf_base = None

    __getattr__ = _attribute

    def __call__(self, *args, **kwargs):
        return _child(self, f"{self._tileperf_path}(...)")

    def __getitem__(self, key):
        return _child(self, f"{self._tileperf_path}[...]")

    def __or__(self, other):  # torch.Tensor | None
        return _child(self, f"{self._tileperf_path} | ...")

    __ror__ = __or__

    def __mro_entries__(self, bases):
        """``class Op(torch.autograd.Function)``: derives from a class named
        after the placeholder that behaves like it (see :class:`_DerivedMeta`)."""
        if self._tileperf_base is None:
            module, _, name = self._tileperf_path.rpartition(".")
            self._tileperf_base = _DerivedMeta(name, (), {
                "__module__": module or name, "_tileperf_placeholder": self,
                "__init__": _accept_anything, "__getattr__": _instance_attribute})
        return (self._tileperf_base,)

    def __repr__(self):
        return f"<{describe(self)}>"

    def __hash__(self):
        return hash(self._tileperf_path)

    __bool__ = _refuse("used as a truth value")
    __len__ = __iter__ = __contains__ = _refuse("iterated or measured")
    __index__ = __int__ = __float__ = __complex__ = _refuse("used as a number")
    __lt__ = __le__ = __gt__ = __ge__ = _refuse("compared")
    __instancecheck__ = __subclasscheck__ = _refuse("used as a type")
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse("used in arithmetic")
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _refuse("used in arithmetic")
    __mod__ = __rmod__ = __pow__ = __rpow__ = _refuse("used in arithmetic")
    __matmul__ = __rmatmul__ = _refuse("used in arithmetic")
    __neg__ = __pos__ = __abs__ = __invert__ = _refuse("used in arithmetic")
    __and__ = __rand__ = __xor__ = __rxor__ = _refuse("used in arithmetic")
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _refuse("used in arithmetic")


def _accept_anything(self, *args, **kwargs):
    """``super().__init__(...)`` of a class derived from a placeholder."""


def _derived_child(cls, name: str) -> "Placeholder":
    return _child(cls._tileperf_placeholder, f"{cls.__qualname__}.{name}")


def _instance_attribute(self, name: str):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return _derived_child(type(self), name)


class _DerivedMeta(abc.ABCMeta):
    """The metaclass of a class derived from a placeholder (``class
    Op(torch.autograd.Function)``): what the class does not define itself
    is a placeholder, as it is of the placeholder it derives from
    (``Op.apply``, ``Op.mark_dirty``), so that ``op = Op.apply`` and
    ``@Op.register`` evaluate at import time. It derives from ``ABCMeta``,
    so that such a class may also derive from ``abc.ABC``."""

    def __getattr__(cls, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _derived_child(cls, name)


def derives_from_placeholder(value) -> bool:
    return isinstance(value, type) and isinstance(value, _DerivedMeta)


class PlaceholderModule(types.ModuleType):
    """A placeholder for a module that is not imported: its attributes are
    :class:`Placeholder` values, its submodules placeholder modules."""

    def __init__(self, name: str, module: str):
        super().__init__(name, f"placeholder for {name}: {module!r} is not installed here")
        self._tileperf_path = name
        self._tileperf_module = module
        self._tileperf_children: dict[str, Placeholder] = {}

    __getattr__ = _attribute

    def __repr__(self):
        return f"<module {describe(self)}>"


def covered(name: str, modules: Iterable[str]) -> str | None:
    """The entry of ``modules`` that module ``name`` is, or is inside of."""
    for m in modules:
        if name == m or name.startswith(m + "."):
            return m
    return None


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, modules: tuple[str, ...]):
        self.modules = modules

    def find_spec(self, fullname, path=None, target=None):
        if covered(fullname, self.modules) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return PlaceholderModule(spec.name, covered(spec.name, self.modules))

    def exec_module(self, module):
        pass


def check_names(modules: Iterable[str], what: str = "placeholder module") -> tuple[str, ...]:
    names = tuple(modules)
    for name in names:
        if not isinstance(name, str) or not MODULE_RE.fullmatch(name):
            raise ValueError(f"{what} {name!r} is not a module name (like torch or mylib._C)")
    return names


@contextlib.contextmanager
def placeholder_modules(modules: Iterable[str]) -> Iterator[None]:
    """Imports of ``modules`` (and of their submodules) give placeholder
    modules until the block ends."""
    names = check_names(modules)
    if not names:
        yield
        return
    saved = {k: sys.modules.pop(k) for k in list(sys.modules) if covered(k, names)}
    try:
        with _finding(_Finder(names)):
            yield
    finally:
        for k in [k for k in sys.modules if covered(k, names)]:
            del sys.modules[k]
        sys.modules.update(saved)


@contextlib.contextmanager
def _finding(finder) -> Iterator[None]:
    """``finder`` first on ``sys.meta_path`` until the block ends."""
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def placeholder_path(value) -> str:
    return object.__getattribute__(value, "_tileperf_path")


def is_placeholder(value) -> bool:
    return isinstance(value, (Placeholder, PlaceholderModule))



# Bare packages: a library's kernel modules without its package __init__ chain.

class BarePackageInitError(ImportError):
    """A bare package's ``__init__.py``, run for a name it defines, raised."""


class BarePackage(types.ModuleType):
    """A package imported without running its ``__init__.py``: a namespace
    whose submodules import from its folder. Its ``__init__.py`` runs only
    when a name that is not a submodule is asked of it (``from
    tilegym.backend import register_impl``, where the package's
    ``__init__.py`` re-exports it); a name it does not define then is
    missing, and the error says why."""

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if (self._tileperf_is_submodule(name) or self.__dict__.get("_tileperf_ran")
                or bare_package_of(self.__name__) is None):  # only while the library is imported
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}: it is a "
                                 f"bare package here (its __init__.py is run only for a name "
                                 f"that is not a submodule)")
        self._tileperf_run_init(name)
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r} (its "
                                 f"__init__.py, run as a bare package's, defines none)") from None

    def _tileperf_is_submodule(self, name: str) -> bool:
        return any((Path(folder) / name).is_dir() or (Path(folder) / f"{name}.py").is_file()
                   for folder in self.__dict__.get("__path__", []))

    def _tileperf_run_init(self, name: str) -> None:
        """Runs the package's ``__init__.py`` in its namespace, once (asked
        for ``name``). What it raises is raised as an ImportError that says
        so, with the error as its cause: an AttributeError raised inside it
        would otherwise reach ``from package import name`` as "cannot import
        name", hiding the first cause."""
        self.__dict__["_tileperf_ran"] = True
        origin = self.__dict__.get("__file__")
        if origin and Path(origin).is_file():
            code = compile(Path(origin).read_text(), origin, "exec")
            try:
                exec(code, self.__dict__)
            except Exception as e:
                raise BarePackageInitError(
                    f"{origin}, the __init__.py of the bare package {self.__name__} (run for {name!r}), raised "
                    f"{type(e).__name__}: {e}", name=self.__name__, path=origin) from e


class _BareFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the packages covered by ``packages`` as the path finder does,
    and loads each as a :class:`BarePackage`; their modules load as usual."""

    def __init__(self, packages: tuple[str, ...]):
        self.packages = packages

    def find_spec(self, fullname, path=None, target=None):
        if covered(fullname, self.packages) is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.submodule_search_locations is None:
            return spec
        bare = importlib.machinery.ModuleSpec(fullname, self, origin=spec.origin, is_package=True)
        bare.submodule_search_locations = list(spec.submodule_search_locations)
        return bare

    def create_module(self, spec):
        module = BarePackage(spec.name)
        module.__file__ = spec.origin
        return module

    def exec_module(self, module):
        pass


def bare_package_of(name: str) -> str | None:
    """The bare package (of the import in progress) that module ``name`` is
    in, if any."""
    for finder in sys.meta_path:
        if isinstance(finder, _BareFinder):
            return covered(name, finder.packages)
    return None


@contextlib.contextmanager
def bare_packages(packages: Iterable[str]) -> Iterator[None]:
    """Packages of ``packages`` (and the packages inside them) import as
    bare packages until the block ends: ``import flashinfer.gemm.kernels.x``
    runs ``x.py`` and what it imports, not ``flashinfer/__init__.py`` nor
    ``flashinfer/gemm/__init__.py``. The modules stay imported."""
    names = check_names(packages, "bare package")
    if not names:
        yield
        return
    with _finding(_BareFinder(names)):
        yield


@contextlib.contextmanager
def library_imports(placeholders: Iterable[str] = (), bare: Iterable[str] = ()) -> Iterator[None]:
    """What a kernel file of a library is imported (and its launch code run)
    with: placeholder modules and bare packages."""
    with bare_packages(bare), placeholder_modules(placeholders):  # placeholders first
        yield
