"""The library a kernel's code belongs to: the installed distribution whose
files hold the kernel's function, and its version, for the dump record
(``{"flashinfer-python": "0.7.4"}``). A kernel of the project itself, or of
a checkout searched before the installed package (a folder on PYTHONPATH),
belongs to none: its code is the project's, gated by its own edits."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig


def _installed_prefixes() -> tuple[str, ...]:
    roots = {sysconfig.get_path(k) for k in ("purelib", "platlib")}
    return tuple({os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots if r})


@functools.lru_cache(maxsize=None)
def _owners() -> dict[str, list[str]]:
    from importlib import metadata
    return metadata.packages_distributions()


def library_of(kernel) -> dict[str, str]:
    """The distribution (name: version) whose installed files define
    ``kernel`` (a ``@ct.kernel`` or its Python function); {} when none does."""
    func = getattr(kernel, "_pyfunc", kernel)
    module = sys.modules.get(getattr(func, "__module__", None) or "")
    file = getattr(module, "__file__", None) or getattr(getattr(func, "__code__", None), "co_filename", "")
    if not file or not os.path.realpath(file).startswith(_installed_prefixes()):
        return {}
    top = (getattr(func, "__module__", None) or "").partition(".")[0]
    from importlib import metadata
    out = {}
    for dist in _owners().get(top, []):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out
