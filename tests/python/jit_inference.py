"""The parameter constraints cuTile's JIT infers from example arrays, on a
machine without a GPU:

    python jit_inference.py '[["float16", [4096, 1000], null, 65536], ...]'

prints, one line per example (dtype name, shape, strides in elements or
null, base address), the repr of the ArrayConstraint that
``KernelSignature.from_kernel_args`` (the derivation ``ct.launch`` compiles
with) gives an object exposing ``__cuda_array_interface__``.

cuTile asks the CUDA driver for its version before it reads arguments, and
the driver's pointer attributes (whose failure it tolerates); a stand-in for
``cuda.tile._load_libcuda`` answers ``cuInit`` and ``cuDriverGetVersion`` and
fails every other driver call with CUDA_ERROR_NO_DEVICE. Run it in a process
of its own: the stand-in stays for the life of the process.
"""

import ctypes
import json
import sys
import types

CUDA_ERROR_NO_DEVICE = 100
TYPESTR = {"float16": "<f2", "float32": "<f4", "float64": "<f8", "int8": "|i1", "int64": "<i8"}
_keep = []


def _function(restype, *argtypes):
    def wrap(python):
        f = ctypes.CFUNCTYPE(restype, *argtypes)(python)
        _keep.append(f)
        return f
    return wrap


@_function(ctypes.c_int)
def _fail():
    return CUDA_ERROR_NO_DEVICE


@_function(ctypes.c_int)
def _init():
    return 0


@_function(ctypes.c_int, ctypes.POINTER(ctypes.c_int))
def _driver_version(version):
    version[0] = 13000
    return 0


_ANSWERS = {"cuInit": _init, "cuDriverGetVersion": _driver_version}


@_function(ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
           ctypes.c_uint64, ctypes.c_void_p)
def _get_proc_address(symbol, pfn, version, flags, status):
    pfn[0] = ctypes.cast(_ANSWERS.get(symbol.decode(), _fail), ctypes.c_void_p).value
    if status:
        ctypes.cast(status, ctypes.POINTER(ctypes.c_int))[0] = 0
    return 0


def install_driver_stand_in():
    module = types.ModuleType("cuda.tile._load_libcuda")
    module.cuGetProcAddress_v2_ptrptr = ctypes.addressof(_get_proc_address)
    sys.modules[module.__name__] = module


class Example:
    """An array on the device, as far as cuTile's argument reader sees."""

    def __init__(self, dtype: str, shape, strides, address: int):
        itemsize = int(TYPESTR[dtype][2:])
        self.__cuda_array_interface__ = dict(
            shape=tuple(shape), typestr=TYPESTR[dtype], data=(address, False), version=3,
            strides=None if strides is None else tuple(s * itemsize for s in strides))


def main(examples) -> None:
    install_driver_stand_in()
    import cuda.tile as ct
    from cuda.tile.compilation import CallingConvention, KernelSignature

    @ct.kernel
    def kernel(x):
        pass

    for dtype, shape, strides, address in examples:
        signature = KernelSignature.from_kernel_args(
            kernel, [Example(dtype, shape, strides, address)], CallingConvention.cutile_python_v2())
        print(repr(signature.parameters[0]))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
