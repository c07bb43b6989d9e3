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
package by its dotted name. Launch code runs against torch itself, on a fake
GPU (:mod:`tileperf_dump.fake_gpu`). ``array(dtype, like=shape)`` states what cuTile's
JIT infers from an array of that shape (:func:`jit_assumptions`).

The package has two audiences. Kernel files use the names below, which this
module imports from its modules on first use, so that ``Config``,
``Problem``, ``Case``, ``cdiv`` and ``override`` come without cuTile (``array`` needs it).
The dump machinery lives in modules of its own: :mod:`.loading` (importing a
kernel file), :mod:`.records` and :mod:`.export` (the dump record and the
bytecode), :mod:`.manifest` (what CMake registers), :mod:`.paths` (the work
folder's file names), :mod:`.files` (atomic writes) and ``run_dump.py``.
"""

from __future__ import annotations

import importlib

# name: the module that defines it
_EXPORTS = {
    # what kernel files use
    "Case": "config", "Config": "config", "Problem": "config", "Target": "config",
    "cdiv": "config", "override": "config", "array": "constraints", "jit_assumptions": "constraints",
    "torch_dtype": "constraints", "inventory_configs": "workloads",
    # the dump machinery's entry points
    "load_kernel_module": "loading", "get_config": "loading",
    "dump_config": "export", "ConfigError": "export", "preload": "export",
    "launch_record": "records", "PlaceholderError": "placeholders",
    "arch": "archs", "capture_launch": "launch", "kernel_hints": "launch",
    "fake_gpu": "fake_gpu", "FakeGpuError": "fake_gpu",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
