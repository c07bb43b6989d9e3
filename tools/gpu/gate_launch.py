"""Launching the very cubin the gate measured, through cuTile's own launch
machinery, and proving that it is that cubin.

``ct.launch`` derives a ``KernelSignature`` from the arguments, looks it up
in the kernel's cache and, on a miss, calls the kernel object's
``_compile(signature, context, compute_capability)``, which returns
``(cubin, symbol, host_program, library_providers)``; cuTile then loads the
cubin (``cuLibraryLoadData``), builds the kernel parameters from the derived
signature and launches it (the driver fills the hidden TMA-descriptor
parameters of a TileIR cubin). :class:`GateKernel` is a ``ct.kernel`` whose
``_compile`` compiles nothing: it returns the gate's cubin for the
configuration's signature, after checking that the signature cuTile derived
from the arguments lays out the same kernel parameters (:func:`check_abi`).
:func:`check_args` checks, separately, that the arguments satisfy every
assumption of the configuration's signature (alignment, divisibility,
contiguity, no aliasing), which the cubin was compiled to rely on.

:func:`install_driver_probe` wraps cuTile's access to the CUDA driver so
that every image cuTile hands to ``cuLibraryLoadData`` is hashed where it
crosses into the driver: the proof that the bytes loaded are the gate's.

This module imports neither torch nor a CUDA library at import time, so that
its checks run on any machine with cuda-tile.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import struct
import sys
import types
from typing import Any, Sequence

import cuda.tile as ct
from cuda.tile._execution import kernel as _ct_kernel
from cuda.tile.compilation import (ArrayConstraint, ConstantConstraint, KernelSignature,
                                   ListConstraint, ScalarConstraint, TupleConstraint)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------
# Signatures as data


def describe_constraint(c: Any) -> Any:
    """A JSON value that identifies a parameter constraint completely."""
    if isinstance(c, ArrayConstraint):
        return {
            "kind": "array", "dtype": c.dtype.name, "ndim": c.ndim,
            "index_dtype": c.index_dtype.name,
            "stride_lower_bound_incl": list(c.stride_lower_bound_incl),
            "alias_groups": list(c.alias_groups),
            "may_alias_internally": c.may_alias_internally,
            "stride_constant": list(c.stride_constant),
            "shape_constant": list(c.shape_constant),
            "stride_divisible_by": list(c.stride_divisible_by),
            "shape_divisible_by": list(c.shape_divisible_by),
            "base_addr_divisible_by": c.base_addr_divisible_by,
        }
    if isinstance(c, ScalarConstraint):
        return {"kind": "scalar", "dtype": c.dtype.name}
    if isinstance(c, ConstantConstraint):
        return {"kind": "constant", "type": type(c.value).__name__, "value": repr(c.value)}
    if isinstance(c, TupleConstraint):
        return {"kind": "tuple", "items": [describe_constraint(i) for i in c.items]}
    if isinstance(c, ListConstraint):
        return {"kind": "list", "element": describe_constraint(c.element),
                "alias_groups": list(c.alias_groups), "elements_may_alias": c.elements_may_alias}
    return {"kind": type(c).__name__, "repr": repr(c)}


def describe_signature(sig: KernelSignature) -> dict:
    return {"symbol": sig.symbol, "calling_convention": sig.calling_convention.name,
            "parameters": [describe_constraint(p) for p in sig.parameters]}


# ---------------------------------------------------------------------------
# Kernel parameters: what a signature makes cuTile pass, what a cubin takes


def param_layout(sig: KernelSignature) -> list[int] | None:
    """Byte sizes of the kernel parameters cuTile passes for a signature, in
    order: per array its base pointer, then its shape and its strides in the
    index dtype; per scalar its value; nothing for a constant. None when the
    signature holds a parameter whose layout this does not know (lists)."""
    sizes: list[int] = []

    def walk(c) -> bool:
        if isinstance(c, ConstantConstraint):
            return True
        if isinstance(c, ArrayConstraint):
            sizes.append(8)
            sizes.extend([c.index_dtype.bitwidth // 8] * (2 * c.ndim))
            return True
        if isinstance(c, ScalarConstraint) and c.dtype.bitwidth in (8, 16, 32, 64):
            sizes.append(c.dtype.bitwidth // 8)
            return True
        if isinstance(c, TupleConstraint):
            return all(walk(i) for i in c.items)
        return False

    return sizes if all(walk(p) for p in sig.parameters) else None


_EIFMT_SVAL = 0x04
_EIATTR_KPARAM_INFO = 0x17
_EIATTR_KPARAM_INFO_V2 = 0x45
_SHT_NOBITS = 8


def _elf_sections(data: bytes) -> list[tuple[str, int, int, int]]:
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not a 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = raw[shstrndx][4]

    def name(o):
        end = data.index(b"\0", stroff + o)
        return data[stroff + o:end].decode()

    return [(name(r[0]), r[1], r[4], r[5]) for r in raw]


def elf_extent(header: bytes, sections: Sequence[tuple[int, int, int]] = ()) -> int:
    """Bytes an ELF image spans from its header: the end of the section and
    program header tables and of every section that occupies file space
    (``sections``: (type, offset, size) triples, when known)."""
    shoff, = struct.unpack_from("<Q", header, 0x28)
    phoff, = struct.unpack_from("<Q", header, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", header, 0x36)
    end = max(64, shoff + shentsize * shnum, phoff + phentsize * phnum)
    for typ, off, size in sections:
        if typ != _SHT_NOBITS:
            end = max(end, off + size)
    return end


def cubin_params(data: bytes, symbol: str) -> list[int]:
    """Byte sizes of the kernel parameters of ``symbol`` in a cubin, by
    ordinal, from its ``.nv.info.<symbol>`` KPARAM_INFO records."""
    sections = _elf_sections(data)
    info = [s for s in sections if s[0] == f".nv.info.{symbol}"]
    if not info:
        raise ValueError(f"the cubin has no .nv.info.{symbol} section (no kernel {symbol!r})")
    _, _, off, size = info[0]
    blob = data[off:off + size]
    params: dict[int, int] = {}
    p = 0
    while p + 2 <= len(blob):
        fmt, attr = blob[p], blob[p + 1]
        p += 2
        if fmt == _EIFMT_SVAL:
            n, = struct.unpack_from("<H", blob, p)
            value = blob[p + 2:p + 2 + n]
            p += 2 + n
        elif fmt == 0x03:
            value = blob[p:p + 2]
            p += 2
        elif fmt == 0x02:
            value = blob[p:p + 1]
            p += 1
        else:
            value = b""
        if attr == _EIATTR_KPARAM_INFO_V2 and len(value) >= 10:
            ordinal, = struct.unpack_from("<H", value, 4)
            params[ordinal], = struct.unpack_from("<H", value, 8)
        elif attr == _EIATTR_KPARAM_INFO and len(value) >= 12:
            ordinal, = struct.unpack_from("<H", value, 4)
            word, = struct.unpack_from("<I", value, 8)
            params[ordinal] = (word >> 18) & 0x3FFF
    if sorted(params) != list(range(len(params))):
        raise ValueError(f"parameter ordinals of {symbol} are not 0..n-1: {sorted(params)}")
    return [params[i] for i in range(len(params))]


def cubin_image_extent(data: bytes) -> int:
    sections = _elf_sections(data)
    return elf_extent(data[:64], [(t, o, s) for _, t, o, s in sections])


# ---------------------------------------------------------------------------
# The checks


def _cconv_needs_v2(c) -> bool:
    if isinstance(c, TupleConstraint):
        return True
    if isinstance(c, ArrayConstraint):
        return any(x is not None for x in c.shape_constant)
    if isinstance(c, ListConstraint):
        return _cconv_needs_v2(c.element)
    return False


def check_abi(config: KernelSignature, derived: KernelSignature) -> list[str]:
    """Problems that keep a kernel compiled for ``config`` from being launched
    with the parameters cuTile builds for ``derived`` (the signature it
    derived from the arguments): a different number or kind of parameters, a
    different constant, an array of another dtype, rank or index dtype, a
    scalar of another dtype. The assumptions (divisibility, alignment,
    aliasing) are the business of :func:`check_args`. cuTile's bytecode
    generation does not read the calling convention, so v1 and v2 lay out
    the same parameters, except that only v2 can express tuples and static
    shapes."""
    problems: list[str] = []
    if config.calling_convention.name != derived.calling_convention.name:
        if derived.calling_convention.version < 2 and any(map(_cconv_needs_v2, config.parameters)):
            problems.append(f"the configuration needs calling convention "
                            f"{config.calling_convention.name}, cuTile derived "
                            f"{derived.calling_convention.name}")

    def compare(where: str, c, d):
        if type(c) is not type(d):
            problems.append(f"{where}: the configuration has a {type(c).__name__}, "
                            f"the arguments give a {type(d).__name__}")
            return
        if isinstance(c, ConstantConstraint):
            if c != d:
                problems.append(f"{where}: constant {c.value!r} in the configuration, "
                                f"{d.value!r} in the arguments")
        elif isinstance(c, ScalarConstraint):
            if c.dtype != d.dtype:
                problems.append(f"{where}: scalar {c.dtype.name} in the configuration, "
                                f"{d.dtype.name} in the arguments")
        elif isinstance(c, ArrayConstraint):
            for field in ("dtype", "ndim", "index_dtype"):
                cv, dv = getattr(c, field), getattr(d, field)
                if cv != dv:
                    show = (lambda v: getattr(v, "name", v))
                    problems.append(f"{where}: array {field} {show(cv)} in the configuration, "
                                    f"{show(dv)} in the arguments")
        elif isinstance(c, TupleConstraint):
            if len(c.items) != len(d.items):
                problems.append(f"{where}: tuple of {len(c.items)} in the configuration, "
                                f"{len(d.items)} in the arguments")
            else:
                for i, (ci, di) in enumerate(zip(c.items, d.items)):
                    compare(f"{where}[{i}]", ci, di)
        else:
            problems.append(f"{where}: {type(c).__name__} parameters are not supported here")

    if len(config.parameters) != len(derived.parameters):
        problems.append(f"{len(config.parameters)} parameters in the configuration, "
                        f"{len(derived.parameters)} in the arguments")
    else:
        for i, (c, d) in enumerate(zip(config.parameters, derived.parameters)):
            compare(f"parameter {i}", c, d)
    return problems


@dataclasses.dataclass(frozen=True)
class ArrayArg:
    """What the assumptions of an ArrayConstraint are about: an argument's
    base address, shape, strides (in elements), element size and dtype name."""
    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    itemsize: int
    dtype: str

    @property
    def span(self) -> tuple[int, int]:
        """[first, last) byte addresses the array can touch."""
        if any(s == 0 for s in self.shape):
            return self.ptr, self.ptr
        lo = sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s < 0)
        hi = sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s > 0)
        return self.ptr + lo * self.itemsize, self.ptr + (hi + 1) * self.itemsize


_TYPESTR = {("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64",
            ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
            ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
            ("b", 1): "bool_"}


def array_arg(value) -> ArrayArg | None:
    """An :class:`ArrayArg` of a torch tensor or of any object with
    ``__cuda_array_interface__``; None for anything else."""
    if all(hasattr(value, a) for a in ("data_ptr", "stride", "element_size", "shape", "dtype")):
        dtype = str(value.dtype).removeprefix("torch.")
        dtype = "bool_" if dtype == "bool" else dtype
        return ArrayArg(int(value.data_ptr()), tuple(value.shape), tuple(value.stride()),
                        int(value.element_size()), dtype)
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is None:
        return None
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.append(acc)
            acc *= n
        strides = tuple(reversed(strides))
    else:
        strides = tuple(s // itemsize for s in cai["strides"])
    return ArrayArg(int(cai["data"][0]), shape, strides, itemsize,
                    _TYPESTR.get((typestr[1], itemsize), typestr))


def _check_array(where: str, c: ArrayConstraint, a: ArrayArg) -> list[str]:
    p: list[str] = []
    if a.dtype != c.dtype.name:
        p.append(f"{where}: dtype {a.dtype}, the configuration says {c.dtype.name}")
    if len(a.shape) != c.ndim:
        p.append(f"{where}: {len(a.shape)} dimensions, the configuration says {c.ndim}")
        return p
    if a.ptr % c.base_addr_divisible_by:
        p.append(f"{where}: base address {a.ptr:#x} is not a multiple of "
                 f"{c.base_addr_divisible_by} bytes")
    limit = 2 ** (c.index_dtype.bitwidth - 1)
    for i, (n, s) in enumerate(zip(a.shape, a.strides)):
        if not -limit <= n < limit or not -limit <= s < limit:
            p.append(f"{where}: shape {n} or stride {s} of dimension {i} does not fit "
                     f"{c.index_dtype.name}")
        if c.shape_constant[i] is not None and n != c.shape_constant[i]:
            p.append(f"{where}: shape[{i}] is {n}, the configuration fixes it to "
                     f"{c.shape_constant[i]}")
        if n % c.shape_divisible_by[i]:
            p.append(f"{where}: shape[{i}] = {n} is not a multiple of {c.shape_divisible_by[i]}")
        if c.stride_constant[i] is not None and s != c.stride_constant[i]:
            p.append(f"{where}: stride[{i}] is {s}, the configuration fixes it to "
                     f"{c.stride_constant[i]}")
        if s % c.stride_divisible_by[i]:
            p.append(f"{where}: stride[{i}] = {s} is not a multiple of "
                     f"{c.stride_divisible_by[i]}")
        bound = c.stride_lower_bound_incl[i]
        if bound is not None and s < bound:
            p.append(f"{where}: stride[{i}] = {s} is below the bound {bound}")
    if not c.may_alias_internally:
        dims = sorted((abs(s), n) for n, s in zip(a.shape, a.strides) if n > 1)
        reach = 1
        for stride, n in dims:
            if stride < reach:
                p.append(f"{where}: strides {a.strides} with shape {a.shape} may address "
                         f"one element twice; the configuration says they do not")
                break
            reach = stride * n
    return p


def check_args(config: KernelSignature, args: Sequence[Any]) -> list[str]:
    """Problems with launching a kernel compiled for ``config`` on ``args``:
    every assumption the signature lets the compiler make must hold for the
    arguments (constants equal, array dtype and rank, alignment of the base
    address, divisibility of shapes and strides, fixed strides and shapes,
    stride bounds, index ranges, no two arrays that share no alias group
    overlapping, no array addressing an element twice)."""
    problems: list[str] = []
    arrays: list[tuple[str, ArrayConstraint, ArrayArg]] = []

    def walk(where, c, v):
        if isinstance(c, ConstantConstraint):
            if type(v) is not type(c.value) or v != c.value:
                problems.append(f"{where}: {v!r} given, the configuration's constant is "
                                f"{c.value!r}")
        elif isinstance(c, ArrayConstraint):
            a = array_arg(v)
            if a is None:
                problems.append(f"{where}: {type(v).__name__} given, the configuration "
                                f"expects an array")
            else:
                problems.extend(_check_array(where, c, a))
                arrays.append((where, c, a))
        elif isinstance(c, ScalarConstraint):
            if isinstance(v, (list, tuple)) or array_arg(v) is not None and array_arg(v).shape:
                problems.append(f"{where}: {type(v).__name__} given for a scalar")
        elif isinstance(c, TupleConstraint):
            if not isinstance(v, tuple) or len(v) != len(c.items):
                problems.append(f"{where}: expected a tuple of {len(c.items)}")
            else:
                for i, (ci, vi) in enumerate(zip(c.items, v)):
                    walk(f"{where}[{i}]", ci, vi)
        else:
            problems.append(f"{where}: {type(c).__name__} parameters are not supported here")

    if len(args) != len(config.parameters):
        return [f"{len(args)} arguments for {len(config.parameters)} parameters"]
    for i, (c, v) in enumerate(zip(config.parameters, args)):
        walk(f"argument {i}", c, v)
    for i, (wi, ci, ai) in enumerate(arrays):
        for wj, cj, aj in arrays[i + 1:]:
            if set(ci.alias_groups) & set(cj.alias_groups):
                continue
            (lo1, hi1), (lo2, hi2) = ai.span, aj.span
            if lo1 < hi2 and lo2 < hi1:
                problems.append(f"{wi} and {wj} overlap in memory; the configuration "
                                f"says they do not alias")
    return problems


# ---------------------------------------------------------------------------
# The driver probe


class DriverProbe:
    """Images handed to ``cuLibraryLoadData`` through cuTile, as
    (bytes, sha256) in order, and any failure to read one."""

    def __init__(self):
        self.loads: list[dict] = []
        self._keep: list[Any] = []
        self.installed = False


PROBE = DriverProbe()


def install_driver_probe(get_proc_address: int | None = None) -> DriverProbe:
    """Makes cuTile reach the CUDA driver through a wrapper of
    ``cuGetProcAddress_v2`` that hands out a recording ``cuLibraryLoadData``:
    each image is read (its ELF extent, from its headers), hashed and recorded
    in :data:`PROBE` before the call goes on to the driver. Must run before
    cuTile first touches the driver (it reads the entry point once, from
    ``cuda.tile._load_libcuda``). ``get_proc_address``: the address of the
    ``cuGetProcAddress_v2`` to wrap (default: libcuda.so.1's)."""
    if PROBE.installed:
        return PROBE
    if "cuda.tile._load_libcuda" in sys.modules:
        raise RuntimeError("cuTile has already loaded the CUDA driver: install the probe first")
    from ctypes import CFUNCTYPE, POINTER, c_char_p, c_int, c_uint, c_uint64, c_void_p
    gpa_type = CFUNCTYPE(c_int, c_char_p, POINTER(c_void_p), c_int, c_uint64, c_void_p)
    load_type = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_uint,
                          c_void_p, c_void_p, c_uint)
    if get_proc_address is None:
        lib = ctypes.CDLL("libcuda.so.1")
        PROBE._keep.append(lib)
        get_proc_address = ctypes.cast(lib["cuGetProcAddress_v2"], c_void_p).value
    real_gpa = gpa_type(get_proc_address)
    real_load: list[Any] = []

    def recording_load(plib, code, jit_opts, jit_vals, n_jit, lib_opts, lib_vals, n_lib):
        entry: dict[str, Any] = {}
        try:
            header = ctypes.string_at(code, 64)
            extent = elf_extent(header)
            head = ctypes.string_at(code, extent)
            shoff, = struct.unpack_from("<Q", head, 0x28)
            shentsize, shnum = struct.unpack_from("<HH", head, 0x3A)
            secs = [struct.unpack_from("<IIQQQQIIQQ", head, shoff + i * shentsize)
                    for i in range(shnum)]
            extent = elf_extent(header, [(s[1], s[4], s[5]) for s in secs])
            image = ctypes.string_at(code, extent)
            entry.update(bytes=len(image), sha256=sha256(image))
        except Exception as e:  # recorded; the load itself goes on
            entry["error"] = f"{type(e).__name__}: {e}"
        rc = real_load[0](plib, code, jit_opts, jit_vals, n_jit, lib_opts, lib_vals, n_lib)
        entry["result"] = rc
        PROBE.loads.append(entry)
        return rc

    load_cb = load_type(recording_load)

    def gpa(symbol, pfn, version, flags, status):
        rc = real_gpa(symbol, pfn, version, flags, status)
        if rc == 0 and symbol == b"cuLibraryLoadData" and pfn[0]:
            real_load[:] = [load_type(pfn[0])]
            pfn[0] = ctypes.cast(load_cb, c_void_p).value
        return rc

    gpa_cb = gpa_type(gpa)
    holder = c_void_p(ctypes.cast(gpa_cb, c_void_p).value)
    PROBE._keep.extend([real_gpa, load_cb, gpa_cb, holder])
    module = types.ModuleType("cuda.tile._load_libcuda")
    module.__doc__ = "tileperf: cuTile's driver entry point, wrapped by gate_launch"
    module.cuGetProcAddress_v2_ptrptr = ctypes.addressof(holder)
    sys.modules["cuda.tile._load_libcuda"] = module
    PROBE.installed = True
    return PROBE


# ---------------------------------------------------------------------------
# The kernel object


class GateLaunchError(RuntimeError):
    pass


def _dispatcher_annotations(pyfunc, signature: KernelSignature):
    """The kernel's own parameter annotations, with the index dtype of each
    array parameter set to the configuration's, so that cuTile derives (and
    passes shapes and strides in) the index dtype the cubin was compiled for."""
    from cuda.tile._annotated_function import LeafAnnotationNode, get_annotated_function
    from cuda.tile._stub import ArrayAnnotation

    annotations = list(get_annotated_function(pyfunc).parameter_annotations)
    for i, (node, c) in enumerate(zip(annotations, signature.parameters)):
        if isinstance(c, ArrayConstraint) and isinstance(node, LeafAnnotationNode):
            current = node.array or ArrayAnnotation()
            if current.index_dtype != c.index_dtype:
                annotations[i] = dataclasses.replace(
                    node, array=dataclasses.replace(current, index_dtype=c.index_dtype))
    return tuple(annotations)


class GateKernel(_ct_kernel):
    """A ``ct.kernel`` standing for a configuration's kernel (``source_kernel``,
    its ``ct.kernel`` object), whose compilation is the gate's
    cubin: ``_compile`` returns ``cubin`` (after checking its SHA-256) for
    the signature cuTile derives from the arguments, provided that signature
    lays out the configuration's parameters (:func:`check_abi`) and the GPU
    is the cubin's architecture; otherwise it raises, and nothing runs.

    ``compiles`` records each call (the derived signature, what was served);
    a cache hit of cuTile does not call it again."""

    def __new__(cls, source_kernel, **_):
        return super().__new__(cls, source_kernel._pyfunc)

    def __init__(self, source_kernel, *, signature: KernelSignature, cubin: bytes,
                 cubin_sha256: str, arch: str):
        from cuda.tile._cext import TileDispatcher

        if sha256(cubin) != cubin_sha256:
            raise GateLaunchError(f"cubin SHA-256 {sha256(cubin)} is not the expected "
                                  f"{cubin_sha256}")
        pyfunc = source_kernel._pyfunc
        TileDispatcher.__init__(self, _dispatcher_annotations(pyfunc, signature))
        # The configuration's kernel object's function and compiler options
        # (hints such as num_ctas), so that cuTile launches as it would launch it.
        self._annotated_function = source_kernel._annotated_function
        self._compiler_options = source_kernel._compiler_options
        self.config_signature = signature
        self.symbol = signature.symbol
        self.cubin = bytes(cubin)
        self.cubin_sha256 = cubin_sha256
        self.arch = arch
        self.compiles: list[dict] = []

    def _compile(self, signature, context, compute_capability=None):
        from cuda.tile._cext import get_compute_capability

        cc = compute_capability or get_compute_capability()
        record: dict[str, Any] = {"derived_signature": describe_signature(signature),
                                  "signature_equal": signature.parameters ==
                                  self.config_signature.parameters,
                                  "gpu_arch": f"sm_{cc[0]}{cc[1]}"}
        self.compiles.append(record)
        problems = check_abi(self.config_signature, signature)
        if record["gpu_arch"] != self.arch:
            problems.append(f"the GPU is {record['gpu_arch']}, the cubin is for {self.arch}")
        if problems:
            record["refused"] = problems
            raise GateLaunchError("cuTile's signature for these arguments does not fit the "
                                  "gate's cubin: " + "; ".join(problems))
        data = bytes(self.cubin)
        record["served_sha256"] = sha256(data)
        if record["served_sha256"] != self.cubin_sha256:
            raise GateLaunchError("the cubin changed in memory")
        return data, self.symbol, None, ()
