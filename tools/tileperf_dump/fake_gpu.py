"""The GPU that a configuration's ``case`` and a library's launch code run
on here, where there is none: PyTorch's fake tensors on a fake ``cuda``
device, and torch's device queries answered from the architecture table.

Under :func:`fake_gpu`, every tensor the code makes is one of torch's fake
tensors (``FakeTensorMode``): shapes, dtypes, strides, views, copies and
type promotion are torch's own, from its meta functions, and no tensor
holds data. Where the code stands for an application's launch (a
configuration's ``case`` or ``launch``), a factory function given no
device makes its tensor on the fake GPU (``cuda:0``), as under torch's
``with torch.device("cuda")``; a library's import keeps torch's default.

What a torch without a GPU cannot answer is answered here, and only that,
each answer named:

- ``torch.cuda``'s device queries (properties, capability, name, SM count,
  memory, whether CUDA is available, the device count and index) from the
  architecture's row of ``archs.json`` (:class:`DeviceProperties`, :func:`_device_queries`);
- streams, events, memory pools and the ``torch.cuda.device``,
  ``torch.cuda.stream`` and ``torch.cuda.use_mem_pool`` contexts, which
  order or place work on a GPU and have nothing to order or place here
  (:class:`Stream`, :class:`Event`, :class:`MemPool`, :func:`_use_mem_pool`,
  :class:`_NoOrdering`);
- every allocation has an address of its own (``data_ptr``), aligned as
  CUDA's caching allocator aligns them, so that code telling allocations
  apart (an output that must not alias an input) or checking alignment sees
  what it would on a GPU (:class:`_Addresses`);
- a custom op (``torch.library.custom_op``) runs its implementation for
  the ``cuda`` device, not its registered fake, so that the launch it makes
  is the one captured (:class:`_RunCustomOps`);
- ``backward()`` walks torch's autograd graph in dependency order, calling
  each node as torch's engine would (:func:`_backward`): the engine itself
  needs a CUDA context for a ``cuda`` tensor (``tests/python/test_fake_gpu.py``
  shows it failing).

Code that reads a tensor's values (``.item()``, ``.tolist()``, ``bool(t)``,
an op whose output shape depends on values) or calls an op torch has no fake
implementation of raises :class:`FakeGpuError` naming the op; the caller
locates it in the library's code from the traceback.
"""

from __future__ import annotations

import contextlib
import operator
import sys
from typing import Any, Iterator

from tileperf_dump.archs import Arch

# CUDA's fixed limits, the same on every architecture the table lists.
WARP_SIZE = 32
MAX_THREADS_PER_BLOCK = 1024
SHARED_BYTES_PER_BLOCK = 48 << 10


class FakeGpuError(RuntimeError):
    """The launch code needs what a fake tensor or the fake GPU does not have."""


class DeviceProperties:
    """What ``torch.cuda.get_device_properties`` gives, for the GPU of an
    architecture's row; a field the table does not give is an
    AttributeError that says so."""

    def __init__(self, target: Arch):
        row = target.row
        self.name = target.part
        self.major, self.minor = target.capability
        self.multi_processor_count = target.sms
        self.total_memory = row["memory_bytes"]
        self.L2_cache_size = row["l2_bytes"]
        self.clock_rate = round(row["clock_ghz"] * 1e6)  # kHz, as CUDA reports it
        self.regs_per_multiprocessor = row["registers_per_sm"]
        self.max_threads_per_multi_processor = row["max_threads_per_sm"]
        self.shared_memory_per_multiprocessor = row["shared_bytes_per_sm"]
        self.shared_memory_per_block_optin = row["shared_bytes_per_block_optin"]
        self.shared_memory_per_block = SHARED_BYTES_PER_BLOCK
        self.max_threads_per_block = MAX_THREADS_PER_BLOCK
        self.warp_size = WARP_SIZE
        self.is_integrated = False
        self.is_multi_gpu_board = False
        self.gcnArchName = ""
        self.uuid = f"fake-{target.name}"
        self.pci_bus_id = self.pci_device_id = self.pci_domain_id = 0
        self._arch = target.name

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"the fake GPU of {self._arch} has no property {name!r}: "
                             f"tools/tileperf_dump/archs.json does not give it")

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory >> 20}MB, multi_processor_count={self.multi_processor_count})")


class Event:
    """``torch.cuda.Event`` on the fake GPU: recorded and waited on, it
    orders nothing; it cannot time anything."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 **kwargs):
        self.enable_timing = enable_timing

    def record(self, stream=None) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end) -> float:
        raise FakeGpuError("torch.cuda.Event.elapsed_time: the fake GPU runs nothing, so there is no time")


class Stream:
    """``torch.cuda.Stream`` on the fake GPU: a handle that launches pass
    along (``cuda_stream`` 0, the default stream) and that orders nothing."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        import torch
        self.device = torch.device("cuda", 0)
        self.device_index, self.device_type = 0, 1  # c10's DeviceType CUDA
        self.priority = priority
        self.cuda_stream = 0

    def wait_event(self, event) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self, event=None):
        return event if event is not None else Event()

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __repr__(self) -> str:
        return "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0 (fake)>"


class MemPool:
    """``torch.cuda.MemPool`` on the fake GPU: a pool that allocations made
    under ``torch.cuda.use_mem_pool`` come from; fake tensors take no memory,
    so it holds none."""

    _next = [1]

    def __init__(self, allocator=None, use_on_oom: bool = False, **kwargs):
        self.id = (0, MemPool._next[0])
        MemPool._next[0] += 1
        self.allocator = allocator

    def use_count(self) -> int:
        return 1

    def snapshot(self) -> list:
        return []


@contextlib.contextmanager
def _use_mem_pool(pool, device=None):
    """``torch.cuda.use_mem_pool(pool)``: allocations come from ``pool``."""
    yield


class _NoOrdering(contextlib.ContextDecorator):
    """``torch.cuda.device(i)``, ``torch.cuda.device_of(t)``,
    ``torch.cuda.stream(s)``: contexts that select a device or stream to
    order work on; the fake GPU is the one device and orders nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


def _index(device) -> int:
    """The device index ``device`` names (None, 0, "cuda", "cuda:0", a
    torch.device); the fake GPU is device 0 and no other."""
    index = getattr(device, "index", device)
    if isinstance(device, str):
        kind, _, number = device.partition(":")
        index = int(number) if number else None
        if kind != "cuda":
            raise FakeGpuError(f"{device!r} is not a CUDA device")
    if index not in (None, 0):
        raise FakeGpuError(f"the fake GPU is CUDA device 0, and there is no device {index}")
    return 0


class _Addresses:
    """Addresses of the fake GPU's allocations: each storage a range of its
    own, in the order they are first asked for, each start aligned to
    ``ALIGN`` bytes (CUDA's caching allocator hands out 512-byte aligned
    blocks); a tensor's is its storage's plus its offset."""

    BASE = 0x7F0000000000
    ALIGN = 512

    def __init__(self):
        self.starts: dict[int, int] = {}
        self.next = self.BASE

    def storage(self, storage) -> int:
        key = storage._cdata
        if key not in self.starts:
            self.starts[key] = self.next
            size = max(storage.nbytes(), 1)
            self.next += -(-size // self.ALIGN) * self.ALIGN
        return self.starts[key]

    def tensor(self, tensor) -> int:
        return self.storage(tensor.untyped_storage()) + tensor.storage_offset() * tensor.element_size()


_ADDRESSES = _Addresses()


def _to_code_outside_torch(answer, real):
    """``answer`` to a caller outside torch, torch's own answer (``real``) to
    torch: torch's fake tensors ask ``torch.cuda.is_available()`` whether to
    set up a real CUDA context, which there is none of here."""
    def query(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        inside = caller == "torch" or caller.startswith("torch.")
        return (real if inside else answer)(*args, **kwargs)
    return query


def _device_queries(target: Arch) -> dict[str, Any]:
    """What ``torch.cuda`` answers for the fake GPU of ``target``, by name."""
    import torch
    props = DeviceProperties(target)
    stream = Stream()
    major, minor = target.capability

    def nothing(*args, **kwargs) -> None:
        return None

    def zero(*args, **kwargs) -> int:
        return 0

    def properties(device=None):
        _index(device)
        return props

    def capability(device=None):
        _index(device)
        return target.capability

    def name(device=None):
        _index(device)
        return target.part

    return {
        "is_available": _to_code_outside_torch(lambda: True, torch.cuda.is_available),
        "is_initialized": _to_code_outside_torch(lambda: True, torch.cuda.is_initialized), "init": nothing,
        "device_count": lambda: 1, "current_device": zero, "set_device": _index,
        "get_device_properties": properties, "get_device_capability": capability,
        "get_device_name": name, "get_arch_list": lambda: [f"sm_{major}{minor}"],
        "is_bf16_supported": lambda *a, **k: major >= 8, "is_tf32_supported": lambda: major >= 8,
        "mem_get_info": lambda device=None: (props.total_memory, props.total_memory),
        "memory_allocated": zero, "max_memory_allocated": zero, "memory_reserved": zero,
        "max_memory_reserved": zero, "reset_peak_memory_stats": nothing,
        "reset_max_memory_allocated": nothing, "empty_cache": nothing, "synchronize": nothing,
        "current_stream": lambda device=None: stream, "default_stream": lambda device=None: stream,
        "set_stream": nothing, "is_current_stream_capturing": lambda: False,
        "Stream": Stream, "Event": Event, "device": _NoOrdering, "device_of": _NoOrdering,
        "stream": _NoOrdering, "StreamContext": _NoOrdering, "MemPool": MemPool, "use_mem_pool": _use_mem_pool,
    }


@contextlib.contextmanager
def _attributes(owner, values: dict[str, Any]) -> Iterator[None]:
    """``owner``'s attributes set to ``values`` for the duration, then put back."""
    missing = object()
    saved = {k: getattr(owner, k, missing) for k in values}
    for k, v in values.items():
        setattr(owner, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is missing:
                delattr(owner, k)
            else:
                setattr(owner, k, v)


def _run_custom_ops_mode():
    """A dispatch mode above fake tensors in which an op defined with
    ``torch.library.custom_op`` runs its implementation for ``cuda`` (or its
    one implementation) with the fake tensors, instead of its registered fake:
    its implementation is what launches the kernel."""
    from torch._library.custom_ops import OPDEFS
    from torch.utils._python_dispatch import TorchDispatchMode

    class _RunCustomOps(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            opdef = OPDEFS.get(func._schema.name)
            if opdef is None:
                return func(*args, **(kwargs or {}))
            implementation = opdef._backend_fns.get("cuda") or opdef._init_fn
            return implementation(*args, **(kwargs or {}))

    return _RunCustomOps()


def _zeros_for(node, index: int):
    """A zero gradient for input ``index`` of an autograd node, from torch's
    own record of that input (shape, dtype, device)."""
    import torch
    meta = node._input_metadata[index]
    return torch.zeros(meta.shape, dtype=meta.dtype, device=meta.device)


def _backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None, **kwargs):
    """``torch.autograd.backward`` on the fake GPU: each node of the graph
    that made ``tensors`` is called once all the nodes that feed it have run,
    with the sum of the gradients they gave it, and leaves accumulate their
    ``.grad``, as torch's engine does. ``inputs`` limits the leaves that
    accumulate."""
    import torch
    tensors = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
    if grad_tensors is None or isinstance(grad_tensors, torch.Tensor):
        grad_tensors = [grad_tensors] * len(tensors)
    wanted = None if inputs is None else {id(t) for t in ([inputs] if isinstance(inputs, torch.Tensor) else inputs)}
    buffers: dict = {}  # node -> gradient per input
    order: list = []
    pending: dict = {}
    seen, stack = set(), []
    for t, g in zip(tensors, grad_tensors):
        if t.grad_fn is None:
            raise FakeGpuError("backward(): the tensor was not made by an operation that records a gradient")
        grad = g if g is not None else torch.ones_like(t)
        slot = buffers.setdefault(t.grad_fn, {})
        slot[t.output_nr] = grad if t.output_nr not in slot else slot[t.output_nr] + grad
        stack.append(t.grad_fn)
    while stack:  # the nodes reachable, and how many edges enter each
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for child, _ in node.next_functions:
            if child is not None:
                pending[child] = pending.get(child, 0) + 1
                stack.append(child)
    ready = [t.grad_fn for t in tensors if pending.get(t.grad_fn, 0) == 0]
    ready = list(dict.fromkeys(ready))
    while ready:
        node = ready.pop()
        order.append(node)
        slot = buffers.pop(node, {})
        if type(node).__name__ == "AccumulateGrad":
            leaf = node.variable
            if wanted is None or id(leaf) in wanted:
                grad = slot.get(0)
                if grad is not None:
                    leaf.grad = grad if leaf.grad is None else leaf.grad + grad
            continue
        count = len(node._input_metadata)
        grads = [slot[i] if i in slot else _zeros_for(node, i) for i in range(count)]
        out = node(*grads) if callable(node) else node.apply(*grads)  # an autograd Function's node: apply
        out = out if isinstance(out, tuple) else (out,)
        for (child, nr), grad in zip(node.next_functions, out):
            if child is None:
                continue
            if grad is not None:
                child_slot = buffers.setdefault(child, {})
                child_slot[nr] = grad if nr not in child_slot else child_slot[nr] + grad
            pending[child] -= 1
            if pending[child] == 0:
                ready.append(child)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    _backward([self], [gradient], retain_graph, create_graph, inputs)


_MODE = []  # the process's one FakeTensorMode: tensors made at import and at launch mix


def fake_mode():
    """This process's fake-tensor mode (one, so that tensors a library made
    while it was imported mix with those its launch makes)."""
    if not _MODE:
        from torch._subclasses.fake_tensor import FakeTensorMode
        _MODE.append(FakeTensorMode(allow_non_fake_inputs=True))
    return _MODE[0]


_REASONS = {
    "DataDependentOutputException": "reads the values of a tensor ({op}: .item(), .tolist(), bool(), or a "
                                    "comparison used as a condition), which a fake tensor does not hold",
    "DynamicOutputShapeException": "calls {op}, whose output's shape depends on the values of a tensor, which "
                                   "a fake tensor does not hold",
    "UnsupportedOperatorException": "calls {op}, which has no fake implementation in torch {version} (a "
                                    "library's own op defines one with torch.library.register_fake)",
}


def explain(error: BaseException) -> BaseException:
    """A :class:`FakeGpuError` that names the op, for torch's errors of code
    that needs data or an op without a fake implementation, or that asks the
    CUDA driver for what the fake GPU does not answer (with the original
    traceback, so that the library's line can be found); any other error as
    it is."""
    import torch
    reason = _REASONS.get(type(error).__name__)
    if reason is not None:
        op = getattr(error, "func", None)
        text = reason.format(op=op if op is not None else "an op", version=torch.__version__.split("+")[0])
    elif isinstance(error, AssertionError) and str(error).startswith("NYI: "):
        text = f"calls {str(error)[5:]}, which torch {torch.__version__.split('+')[0]}'s fake tensors do not implement"
    elif isinstance(error, RuntimeError) and any(m in str(error) for m in _DRIVER_ERRORS):
        text = f"needs the CUDA driver, which the fake GPU stands in for only in its device queries ({type(error).__name__}: {str(error).splitlines()[0]})"
    else:
        return error
    return FakeGpuError(f"the launch {text}").with_traceback(error.__traceback__)


# What torch says when code reaches the CUDA driver on a machine without one.
_DRIVER_ERRORS = ("CUDA driver", "NVIDIA driver", "no CUDA GPUs", "Torch not compiled with CUDA")


def _number_of(convert):
    """``int(t)``, ``float(t)``, ``operator.index(t)`` of a tensor: the
    number its one element holds, asked of ``item()``, as torch does; a fake
    tensor knows it only for a constant (torch's C++ path would first set up
    the CUDA device)."""
    def number(self):
        return convert(self.item())
    return number


@contextlib.contextmanager
def fake_gpu(target: Arch, default_device: bool = False) -> Iterator[None]:
    """Runs the body on the fake GPU of ``target``: torch's fake tensors,
    ``torch.cuda`` answering for ``target``'s GPU, custom ops running their
    ``cuda`` implementation and ``backward()`` walking the graph (see the
    module's docstring); with ``default_device``, ``cuda`` is the default
    device. Errors of code that needs data leave it as :class:`FakeGpuError`."""
    import torch
    with contextlib.ExitStack() as stack:
        stack.enter_context(_attributes(torch.cuda, _device_queries(target)))
        stack.enter_context(_attributes(torch.Tensor, {
            "backward": _tensor_backward, "__int__": _number_of(int), "__float__": _number_of(float),
            "__index__": _number_of(operator.index), "__complex__": _number_of(complex),
            "data_ptr": lambda self: _ADDRESSES.tensor(self)}))
        stack.enter_context(_attributes(torch.UntypedStorage, {"data_ptr": lambda self: _ADDRESSES.storage(self)}))
        stack.enter_context(_attributes(torch.autograd, {"backward": _backward}))
        stack.enter_context(fake_mode())
        if default_device:
            stack.enter_context(torch.device("cuda"))
        stack.enter_context(_run_custom_ops_mode())
        try:
            yield
        except Exception as e:  # noqa: BLE001 - only torch's data errors are changed
            explained = explain(e)
            if explained is e:
                raise
            raise explained from None


def warm() -> None:
    """Imports torch and makes and uses one fake tensor, so that processes
    forked afterwards share what the first use of fake tensors costs; keeps
    torch to one thread (nothing is computed, and a thread pool does not
    survive a fork)."""
    import torch
    from tileperf_dump.archs import arch, lowest_arch
    torch.set_num_threads(1)
    with fake_gpu(arch(lowest_arch()), default_device=True):
        x = torch.empty(2, 2, dtype=torch.float16)
        (x.t() + 1).float().sum(0)
