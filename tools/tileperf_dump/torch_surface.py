"""What ``import torch`` is to a library imported by the dump step: the
stand-in for torch (:class:`tileperf_dump.standin.StandInTorch`) of one
architecture, with the part of torch's surface that libraries use as they
are imported and as their public ops are called:

- ``torch.__version__`` and ``torch.version`` / ``torch.torch_version``:
  a version that compares with strings and tuples as torch's does
  (``TorchVersion(torch_version) < TorchVersion("2.4")``, ``torch.version.cuda >= "12.3"``);
- ``torch.device``, ``torch.dtype``, ``torch.Size``, ``torch.Tensor`` (the
  stand-in's classes, which a library may subclass or annotate with);
- ``torch.cuda``: the device queries of the architecture (name, capability,
  SM count, memory), streams, events and ``torch.cuda.device`` as context
  managers that do nothing;
- ``torch.autograd.Function``: ``Op.apply(...)`` runs ``Op.forward`` with a
  context that records what it is given, so that a library's public op
  launches as its users call it;
- ``torch.nn.Module``, ``torch.library.custom_op`` / ``register_fake``,
  ``torch.compile``, ``torch.no_grad``, ``torch.inference_mode``,
  ``torch.jit.script``, ``torch.compiler.disable``: decorators and context
  managers that leave the function as it is.

Everything else is a placeholder while the library is imported (see
:mod:`tileperf_dump.placeholders`), so that what a module does with it at
import time evaluates, and a :class:`StandInError` naming it when the
library calls it at run time. Modules of torch that are not listed
(``torch.distributed``, ``torch._C``) import as placeholder modules.
"""

from __future__ import annotations

import contextlib
import functools
import re
import types
from typing import Any, Callable

from tileperf_dump.standin import Device, DType, Size, Tensor

# The torch release the stand-in answers to, and the CUDA it was built for.
TORCH_VERSION = "2.9.1"
CUDA_VERSION = "13.0"


def _release(value) -> tuple:
    """(2, 9, 1) of '2.9.1+cu130', '2.10.0a0', (2, 9) or '13.0'."""
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    parts = []
    for piece in re.split(r"[.+]", str(value)):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
        if digits.group() != piece:  # '0a0': a pre-release, the release part ends here
            break
    return tuple(parts)


@functools.total_ordering
class TorchVersion(str):
    """A version string that compares as a release: ``TorchVersion("2.9.1") >= "2.4"``."""

    def _key(self, other) -> tuple[tuple, tuple]:
        a, b = _release(self), _release(other)
        width = max(len(a), len(b))
        return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))

    def __eq__(self, other) -> bool:
        if not isinstance(other, (str, tuple, list)):
            return NotImplemented
        a, b = self._key(other)
        return a == b

    def __lt__(self, other) -> bool:
        if not isinstance(other, (str, tuple, list)):
            return NotImplemented
        a, b = self._key(other)
        return a < b

    __hash__ = str.__hash__


class _Nothing(contextlib.ContextDecorator):
    """A context manager and decorator that does nothing (``torch.no_grad()``,
    ``torch.cuda.device(0)``, ``torch.cuda.stream(s)``)."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


def _decorator(*args, **kwargs):
    """``@torch.compile``, ``@torch.compile(mode=...)``, ``@torch.jit.script``:
    the function itself."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda fn: fn


class _Stream:
    """``torch.cuda.Stream``: a handle that launches pass along."""

    def __init__(self, *args, **kwargs):
        self.cuda_stream = 0

    def synchronize(self) -> None:
        pass

    def wait_stream(self, other) -> None:
        pass

    def wait_event(self, event) -> None:
        pass

    def __repr__(self) -> str:
        return "<stand-in stream>"


class _Event:
    def __init__(self, *args, **kwargs):
        pass

    def record(self, *args, **kwargs) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, *args) -> None:
        pass

    def elapsed_time(self, other) -> float:
        raise RuntimeError("torch.cuda.Event.elapsed_time() needs a GPU; the stand-in times nothing")


def cuda_module(name: str, capability: tuple[int, int], sms: int) -> types.ModuleType:
    """``torch.cuda`` of one architecture: the GPU the launch model stands for there."""
    cuda = types.ModuleType("torch.cuda")
    props = types.SimpleNamespace(
        name=name, major=capability[0], minor=capability[1], multi_processor_count=sms,
        total_memory=80 << 30, L2_cache_size=50 << 20, warp_size=32, max_threads_per_multi_processor=2048,
        regs_per_multiprocessor=65536, shared_memory_per_block=48 << 10,
        shared_memory_per_block_optin=227 << 10 if capability[0] < 12 else 99 << 10,
        shared_memory_per_multiprocessor=228 << 10 if capability[0] < 12 else 100 << 10,
        is_integrated=False, is_multi_gpu_board=False, gcnArchName="", uuid="stand-in")
    stream = _Stream()
    values: dict[str, Any] = {
        "is_available": lambda: True, "is_initialized": lambda: True, "init": lambda: None,
        "device_count": lambda: 1, "current_device": lambda: 0, "set_device": lambda *a: None,
        "get_device_name": lambda *a: name, "get_device_capability": lambda *a: capability,
        "get_device_properties": lambda *a: props, "get_arch_list": lambda: [f"sm_{capability[0]}{capability[1]}"],
        "synchronize": lambda *a: None, "current_stream": lambda *a: stream,
        "default_stream": lambda *a: stream, "set_stream": lambda *a: None,
        "is_current_stream_capturing": lambda: False, "empty_cache": lambda: None,
        "manual_seed": lambda *a: None, "manual_seed_all": lambda *a: None,
        "mem_get_info": lambda *a: (props.total_memory, props.total_memory),
        "max_memory_allocated": lambda *a: 0, "memory_allocated": lambda *a: 0,
        "reset_peak_memory_stats": lambda *a: None,
        "device": _Nothing, "stream": _Nothing, "graph": _Nothing, "Stream": _Stream,
        "Event": _Event, "StreamContext": _Nothing, "_initialized": True,
        "nvtx": types.SimpleNamespace(range=_Nothing, range_push=lambda *a: None,
                                      range_pop=lambda *a: None, mark=lambda *a: None),
    }
    for key, value in values.items():
        setattr(cuda, key, value)
    return cuda


class FunctionCtx:
    """The context ``forward`` of an autograd Function is given."""

    def __init__(self, args=()):
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        self.saved_tensors: tuple = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        self.saved_tensors = tensors

    def mark_dirty(self, *tensors) -> None:
        pass

    def mark_non_differentiable(self, *tensors) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class Function:
    """``torch.autograd.Function``: ``apply`` runs ``forward`` with a context,
    as torch does in a forward pass (the backward is never run)."""

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def apply(cls, *args, **kwargs):
        forward = cls.__dict__.get("forward") or getattr(cls, "forward")
        if isinstance(forward, staticmethod):
            forward = forward.__func__
        ctx = FunctionCtx(args)
        setup = getattr(cls, "setup_context", None)
        if setup is not None and cls.setup_context is not Function.setup_context:
            out = forward(*args, **kwargs)  # torch 2's form: forward without ctx
            setup(ctx, args, out)
        else:
            out = forward(ctx, *args, **kwargs)
        if any(ctx.needs_input_grad):  # out.backward() runs this Function's backward
            outputs = out if isinstance(out, tuple) else (out,)
            for o in outputs:
                if isinstance(o, Tensor):
                    o.grad_fn, o.requires_grad, o.is_leaf = (cls, ctx, outputs), True, False
        return out

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("an autograd Function must define forward")

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("this autograd Function defines no backward")


def _once_differentiable(fn):
    return fn


class Module:
    """``torch.nn.Module``: ``module(...)`` calls ``forward``; parameters and
    buffers are attributes."""

    training = False

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        setattr(self, name, tensor)

    def register_parameter(self, name: str, param) -> None:
        setattr(self, name, param)

    def to(self, *args, **kwargs):
        return self

    cuda = half = float = bfloat16 = eval = to

    def train(self, mode: bool = True):
        return self

    def parameters(self, *args, **kwargs):
        return iter(v for v in vars(self).values() if isinstance(v, Tensor))

    def modules(self):
        return iter([self])


def Parameter(data=None, requires_grad: bool = True):  # noqa: N802 - torch's name
    return data


class _CustomOp:
    """What ``@torch.library.custom_op(...)`` makes of a function: the function,
    with the registration methods a library calls on it at import time."""

    def __init__(self, fn: Callable):
        self._fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def register_fake(self, fn=None):
        return fn if fn is not None else (lambda f: f)

    register_kernel = register_autograd = register_torch_dispatch = register_fake


def _custom_op(name=None, fn=None, /, *, mutates_args=(), device_types=None, schema=None):
    if callable(name) and fn is None:
        return _CustomOp(name)
    if fn is not None:
        return _CustomOp(fn)
    return _CustomOp


def _register(*args, **kwargs):
    """``torch.library.register_fake("ns::op")`` and the like: a decorator that keeps the function."""
    if args and callable(args[-1]) and not isinstance(args[-1], str):
        return args[-1]
    return lambda fn: fn


class _Library:
    def __init__(self, *args, **kwargs):
        pass

    def define(self, *args, **kwargs) -> None:
        pass

    def impl(self, *args, **kwargs):
        return _register(*args, **kwargs)


def _pad(x: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """``torch.nn.functional.pad``: the padded shape (pairs from the last dimension)."""
    shape = list(x.shape)
    for i in range(len(pad) // 2):
        shape[-1 - i] += pad[2 * i] + pad[2 * i + 1]
    return x._like(shape=shape)


def _module(name: str, **attrs) -> types.ModuleType:
    """A module of the stand-in, a package: its modules that the stand-in
    does not provide import as placeholder modules."""
    module = types.ModuleType(name)
    module.__path__ = []
    for key, value in attrs.items():
        setattr(module, key, value)
    return module


def torch_modules(torch: types.ModuleType, part: str, capability: tuple[int, int],
                  sms: int) -> dict[str, types.ModuleType]:
    """The modules of the stand-in for torch by name (``torch``, ``torch.cuda``,
    ...), with ``torch``'s import-time attributes set."""
    version = TorchVersion(TORCH_VERSION)
    cuda = cuda_module(part, capability, sms)
    modules = {
        "torch.version": _module("torch.version", __version__=version, cuda=CUDA_VERSION, hip=None,
                                 git_version="stand-in", debug=False),
        "torch.torch_version": _module("torch.torch_version", TorchVersion=TorchVersion,
                                       __version__=version),
        "torch.cuda": cuda,
        "torch.autograd": _module("torch.autograd", Function=Function, grad_mode=None,
                                  no_grad=_Nothing, enable_grad=_Nothing),
        "torch.autograd.function": _module("torch.autograd.function", Function=Function,
                                           FunctionCtx=FunctionCtx,
                                           once_differentiable=_once_differentiable),
        "torch.nn": _module("torch.nn", Module=Module, Parameter=Parameter),
        "torch.nn.functional": _module("torch.nn.functional", pad=_pad),
        "torch.library": _module("torch.library", custom_op=_custom_op, register_fake=_register,
                                 impl_abstract=_register, impl=_register, define=_register,
                                 register_kernel=_register, register_autograd=_register,
                                 Library=_Library),
        "torch.jit": _module("torch.jit", script=_decorator, ignore=_decorator, unused=_decorator,
                             is_scripting=lambda: False),
        "torch.compiler": _module("torch.compiler", disable=_decorator, is_compiling=lambda: False,
                                  allow_in_graph=_decorator, assume_constant_result=_decorator),
        "torch._dynamo": _module("torch._dynamo", disable=_decorator, is_compiling=lambda: False,
                                 allow_in_graph=_decorator, mark_dynamic=lambda *a, **k: None),
    }
    modules["torch.autograd"].function = modules["torch.autograd.function"]
    modules["torch.nn"].functional = modules["torch.nn.functional"]
    attrs = {
        "__version__": version, "__path__": [], "device": Device, "Size": Size, "Tensor": Tensor,
        "dtype": DType, "no_grad": _Nothing, "inference_mode": _Nothing, "enable_grad": _Nothing,
        "set_grad_enabled": _Nothing, "compile": _decorator, "is_grad_enabled": lambda: True,
        "is_tensor": lambda x: isinstance(x, Tensor), "get_default_dtype": lambda: torch.float32,
        "set_default_dtype": lambda *a: None, "Generator": _Nothing, "_dynamo": modules["torch._dynamo"],
    }
    for key, value in attrs.items():
        setattr(torch, key, value)
    for name, module in modules.items():
        parent, _, child = name.rpartition(".")
        if parent == "torch":
            setattr(torch, child, module)
    modules["torch"] = torch
    return modules
