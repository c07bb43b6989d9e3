"""A stand-in for ``torch`` that knows shapes, dtypes and strides and holds
no data, so that a configuration's ``case(torch, **sizes)`` can be run on a
machine without torch or a GPU to learn what the launch moves: the arrays it
passes the kernel, their shapes and their bytes (the floor on what a launch
must read and write).

Only what builds a launch is supported: creating tensors (``randn``,
``empty``, ``zeros``, ``ones``, ``full``, ``randint``, ``rand``, ``arange``,
the ``*_like`` forms), ``.to()``, arithmetic with broadcasting, ``view``,
``reshape``, ``transpose``/``t``/``permute``, ``contiguous``, slicing with
steps of one, and the dtype names. Computing values is not: an expectation
(``Case.expected``) is never called here. Anything else raises
:class:`StandInError` naming what was used.
"""

from __future__ import annotations

import math
import types
from typing import Any, Sequence

from tileperf_dump.placeholders import PlaceholderModule, StandInError, is_placeholder, placeholder_path


class DType:
    def __init__(self, name: str, itemsize: int):
        self.name, self.itemsize = name, itemsize
        self.is_floating_point = name.startswith(("float", "bfloat"))
        self.is_complex = name.startswith("complex")

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __eq__(self, other) -> bool:
        """Equal to the same dtype, also to the placeholder that stood for it
        when the library was imported (``{torch.bfloat16: 0}`` built at import
        time is looked up with the stand-in's dtype)."""
        if is_placeholder(other):
            return placeholder_path(other) == f"torch.{self.name}"
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(f"torch.{self.name}")


_DTYPES = {
    "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1,
    "int16": 2, "int32": 4, "int64": 8, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1,
    "float8_e8m0fnu": 1, "float4_e2m1fn_x2": 1, "complex64": 8,
}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "int": "int32",
            "long": "int64", "short": "int16"}


def _row_major(shape: Sequence[int]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _shape_of(args) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    shape = tuple(args)
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
        raise StandInError(f"a tensor shape must be non-negative integers, got {shape!r}")
    return shape


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + a), reversed((1,) * (len(a) - len(b)) + b)):
        if x != y and 1 not in (x, y):
            raise StandInError(f"shapes {a} and {b} do not broadcast")
        out.append(max(x, y))
    return tuple(reversed(out))


class Device(str):
    """``torch.device`` and ``tensor.device``: compares as its name ("cuda",
    "cuda:0"), with torch.device's fields; ``Device("cuda", 1)``, ``Device(0)``
    and ``Device(other_device)`` as torch.device takes them."""

    def __new__(cls, type="cuda", index=None):
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        name = str(type)
        if index is not None and ":" not in name:
            name = f"{name}:{index}"
        return super().__new__(cls, name)

    @property
    def type(self) -> str:
        return self.partition(":")[0]

    @property
    def index(self) -> int:
        return int(self.partition(":")[2] or 0)


class Size(tuple):
    """``tensor.shape``: a tuple that also counts its elements, as torch.Size does."""

    def numel(self) -> int:
        return math.prod(self)


class Tensor:
    """A tensor's shape, strides (in elements) and dtype; its storage is the
    elements it spans."""

    def __init__(self, shape, dtype: DType, strides=None, base: "Tensor | None" = None,
                 device: str = "cuda"):
        self.shape = Size(shape)
        self.dtype = dtype
        self._strides = tuple(strides) if strides is not None else _row_major(self.shape)
        self.base = base.base if base is not None else self  # the allocation a view is of
        self.storage_elements = math.prod(self.shape) if base is None else base.storage_elements
        self.device = Device(device)
        if base is not None and base.requires_grad:  # a view of a tensor that requires grad does too
            self.requires_grad, self.grad_fn, self.is_leaf = True, base.grad_fn, False

    # shape and layout
    def size(self, dim: int | None = None):
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim: int | None = None):
        return self._strides if dim is None else self._strides[dim]

    def dim(self) -> int:
        return len(self.shape)

    ndim = property(dim)

    def numel(self) -> int:
        return math.prod(self.shape)

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self) -> bool:
        return self._strides == _row_major(self.shape)

    def data_ptr(self) -> int:
        return 1 << 20  # aligned, as a fresh allocation is

    def storage_offset(self) -> int:
        return 0

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def __len__(self) -> int:
        return self.shape[0]

    def _like(self, shape=None, dtype=None) -> "Tensor":
        return Tensor(self.shape if shape is None else shape, dtype or self.dtype, device=self.device)

    # conversions
    def to(self, *args, **kwargs) -> "Tensor":
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, DType):
                dtype = a
        return self if dtype is None else self._like(dtype=dtype)

    def contiguous(self, *args, **kwargs) -> "Tensor":
        return self if self.is_contiguous() else self._like()

    def clone(self, *args, **kwargs) -> "Tensor":
        return self._like()

    def cuda(self, *args, **kwargs) -> "Tensor":
        return self

    requires_grad = False
    is_leaf = True
    grad_fn = None  # (Function class, its context, the outputs) of the forward that made it

    def detach(self) -> "Tensor":
        out = Tensor(self.shape, self.dtype, self._strides, self, self.device)
        out.requires_grad, out.grad_fn, out.is_leaf = False, None, True
        return out

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    def backward(self, gradient=None, *args, **kwargs) -> None:
        """The backward of the autograd Function whose forward made this
        tensor (or the tensor it was computed from by arithmetic or a
        reduction, a loss ``out.sum() / n``), as torch runs it: ``Function.backward(ctx, grad...)``, one
        gradient (``gradient``, or a tensor like each output) per output.
        Only that one Function's backward runs: what the gate needs is the
        launches of a library's backward kernels."""
        if self.grad_fn is None:
            raise StandInError("tensor.backward(): the tensor was not made by an autograd Function's "
                               "forward (Function.apply) with an input that requires grad")
        function, ctx, outputs = self.grad_fn
        grads = [gradient if o is self and gradient is not None else o._like() if isinstance(o, Tensor)
                 else None for o in outputs]
        function.backward(ctx, *grads)

    def half(self): return self._like(dtype=_dtype("float16"))
    def float(self): return self._like(dtype=_dtype("float32"))
    def double(self): return self._like(dtype=_dtype("float64"))
    def bfloat16(self): return self._like(dtype=_dtype("bfloat16"))
    def int(self): return self._like(dtype=_dtype("int32"))
    def long(self): return self._like(dtype=_dtype("int64"))

    # views
    def view(self, *shape) -> "Tensor":
        if len(shape) == 1 and isinstance(shape[0], DType):  # the same bytes as another dtype
            if shape[0].itemsize != self.dtype.itemsize:
                raise StandInError(f"view of {self.dtype!r} as {shape[0]!r}: another element size")
            return Tensor(self.shape, shape[0], self._strides, self, self.device)
        return self.reshape(*shape)

    def untyped_storage(self):
        return types.SimpleNamespace(data_ptr=lambda: id(self.base), nbytes=lambda: self.storage_elements)

    def reshape(self, *shape) -> "Tensor":
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) > 1:
            raise StandInError("reshape: more than one -1")
        if -1 in shape:
            known = math.prod(n for n in shape if n != -1)
            shape[shape.index(-1)] = self.numel() // max(known, 1)
        shape = list(_shape_of(tuple(shape)))
        if math.prod(shape) != self.numel():
            raise StandInError(f"reshape of {self.shape} to {tuple(shape)}")
        return Tensor(shape, self.dtype, base=self, device=self.device)

    def squeeze(self, dim=None) -> "Tensor":
        if dim is None:
            keep = [i for i, n in enumerate(self.shape) if n != 1]
        else:
            dims = {d % max(self.dim(), 1) for d in ((dim,) if isinstance(dim, int) else dim)}
            keep = [i for i, n in enumerate(self.shape) if i not in dims or n != 1]
        return Tensor([self.shape[i] for i in keep], self.dtype, [self._strides[i] for i in keep],
                      self, self.device)

    def unsqueeze(self, dim: int) -> "Tensor":
        dim = dim % (self.dim() + 1)
        inner = self._strides[dim] * self.shape[dim] if dim < self.dim() else 1
        return Tensor(self.shape[:dim] + (1,) + self.shape[dim:], self.dtype,
                      self._strides[:dim] + (inner,) + self._strides[dim:], self, self.device)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        start, end = start_dim % max(self.dim(), 1), end_dim % max(self.dim(), 1)
        return self.reshape(*self.shape[:start], math.prod(self.shape[start:end + 1]), *self.shape[end + 1:])

    def expand(self, *shape) -> "Tensor":
        shape = _shape_of(shape) if not (len(shape) == 1 and isinstance(shape[0], (tuple, list))) \
            else tuple(shape[0])
        lead = len(shape) - self.dim()
        sizes = [n if n != -1 else self.shape[i - lead] for i, n in enumerate(shape)]
        strides = [0 if i < lead or (self.shape[i - lead] == 1 and sizes[i] != 1) else self._strides[i - lead]
                   for i in range(len(sizes))]
        return Tensor(sizes, self.dtype, strides, self, self.device)

    def expand_as(self, other: "Tensor") -> "Tensor":
        return self.expand(*other.shape)

    def view_as(self, other: "Tensor") -> "Tensor":
        return self.reshape(*other.shape)

    def narrow(self, dim: int, start: int, length: int) -> "Tensor":
        """A view of ``length`` elements of ``dim`` (the strides kept)."""
        index = [slice(None)] * self.dim()
        index[dim] = slice(start, start + length)
        return self[tuple(index)]

    def repeat_interleave(self, repeats: int, dim: int | None = None, **kwargs) -> "Tensor":
        """A new tensor, each element ``repeats`` times along ``dim`` (flattened when None)."""
        if not isinstance(repeats, int):
            raise StandInError("repeat_interleave with a tensor of repeats needs real data")
        if dim is None:
            return self._like(shape=(self.numel() * repeats,))
        shape = list(self.shape)
        shape[dim] *= repeats
        return self._like(shape=shape)

    def new_empty(self, *size, dtype=None, **kwargs) -> "Tensor":
        return self._like(shape=_shape_of(size), dtype=dtype)  # sizes, or one tuple of them

    new_zeros = new_ones = new_empty

    def new_full(self, size, value, dtype=None, **kwargs) -> "Tensor":
        return self.new_empty(size, dtype=dtype)

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def transpose(self, a: int, b: int) -> "Tensor":
        order = list(range(self.dim()))
        order[a], order[b] = order[b], order[a]
        return self.permute(*order)

    def t(self) -> "Tensor":
        return self.transpose(0, 1)

    @property
    def T(self) -> "Tensor":
        return self.permute(*reversed(range(self.dim())))

    def as_strided(self, size, stride, storage_offset=0) -> "Tensor":
        return _as_strided(self, size, stride, storage_offset)

    def permute(self, *order) -> "Tensor":
        order = _shape_of(order) if order and isinstance(order[0], (tuple, list)) else order
        return Tensor([self.shape[i] for i in order], self.dtype, [self._strides[i] for i in order],
                      self, self.device)

    def __getitem__(self, index) -> "Tensor":
        index = index if isinstance(index, tuple) else (index,)
        if Ellipsis in index:
            at = index.index(Ellipsis)
            index = index[:at] + (slice(None),) * (self.dim() - len(index) + 1) + index[at + 1:]
        shape, strides = [], []
        for d, (n, s) in enumerate(zip(self.shape, self._strides)):
            i = index[d] if d < len(index) else slice(None)
            if isinstance(i, int):
                continue
            if i is None or not isinstance(i, slice) or i.step not in (None, 1):
                raise StandInError(f"indexing with {i!r}")
            lo, hi, _ = i.indices(n)
            shape.append(max(hi - lo, 0))
            strides.append(s)
        return Tensor(shape, self.dtype, strides, self, self.device)

    # arithmetic: shape and dtype only
    def _binary(self, other) -> "Tensor":
        shape = _broadcast(self.shape, other.shape) if isinstance(other, Tensor) else self.shape
        return self._like(shape=shape)._graded(self, other)

    def _graded(self, *inputs) -> "Tensor":
        """This result of arithmetic or a reduction keeps the autograd Function
        an input came from, so that ``loss.backward()`` on ``out.sum() / n``
        runs that Function's backward (a gradient like each of its outputs)."""
        made = next((t.grad_fn for t in inputs if isinstance(t, Tensor) and t.grad_fn), None)
        if made is not None:
            self.grad_fn, self.requires_grad, self.is_leaf = made, True, False
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _binary
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __floordiv__ = __mod__ = _binary

    def _compared(self, other) -> "Tensor":
        return self._binary(other).to(_dtype("bool"))  # a mask: its values are data

    __lt__ = __le__ = __gt__ = __ge__ = __and__ = __or__ = __xor__ = _compared

    def __bool__(self) -> bool:
        if self.dtype.name == "bool":
            raise StandInError("the truth value of a mask needs real data")
        return len(self) != 0

    def exp(self):
        return self._like()

    log = sigmoid = tanh = exp

    def clamp(self, min=None, max=None):
        return self._like()

    clamp_min = clamp_max = clamp

    def gather(self, dim, index) -> "Tensor":
        return Tensor(index.shape, self.dtype, device=self.device)

    def __neg__(self):
        return self._like()

    def __abs__(self):
        return self._like()

    def abs(self):
        return self._like()

    # reductions: the shape of the result, no values
    def _reduced(self, dim=None, keepdim=False, dtype=None) -> "Tensor":
        if dim is None:
            return Tensor((), dtype or self.dtype, device=self.device)._graded(self)
        dims = {d % max(self.dim(), 1) for d in ((dim,) if isinstance(dim, int) else dim)}
        shape = [1 if i in dims else n for i, n in enumerate(self.shape) if keepdim or i not in dims]
        return Tensor(shape, dtype or self.dtype, device=self.device)._graded(self)

    def sum(self, dim=None, keepdim=False, dtype=None):
        return self._reduced(dim, keepdim, dtype)

    amax = amin = mean = prod = logsumexp = sum

    def max(self, dim=None, keepdim=False):
        values = self._reduced(dim, keepdim)
        if dim is None:
            return values
        return types.SimpleNamespace(values=values, indices=values.to(_dtype("int64")))

    min = max

    def sort(self, dim=-1, descending=False, **kwargs):
        """Values and indices of the same shape (the order is data, the shapes are not)."""
        return types.SimpleNamespace(values=self._like(), indices=self._like(dtype=_dtype("int64")))

    def diff(self, dim=-1):
        shape = list(self.shape)
        shape[dim] = max(shape[dim] - 1, 0)
        return self._like(shape=shape)

    def _no_nan(self) -> "Tensor":
        out = self._like(dtype=_dtype("bool"))
        out._known = False  # the stand-in's tensors hold no NaN or infinity
        return out

    isnan = isinf = _no_nan

    def any(self, *args, **kwargs):
        known = getattr(self, "_known", None)
        if known is None:
            raise StandInError("tensor.any() of values needs real data")
        return known

    def fill_(self, *args):
        return self

    def __setitem__(self, index, value) -> None:
        self[index]  # an assignment to a part: its index must make a view, no values are kept

    zero_ = normal_ = uniform_ = masked_fill_ = fill_

    def __repr__(self) -> str:
        return f"StandInTensor(shape={self.shape}, dtype={self.dtype!r}, stride={self._strides})"


# cuTile's name of a dtype where it differs from torch's.
CT_NAMES = {"bool": "bool_"}
_MADE: dict[str, DType] = {}


def _dtype(name: str) -> DType:
    """The one stand-in dtype of that name (one object per name, so that
    cuTile can be told which of its dtypes each is: see ``register_dtypes``)."""
    name = _ALIASES.get(name, name)
    if name not in _MADE:
        _MADE[name] = DType(name, _DTYPES[name])
    return _MADE[name]


def register_dtypes() -> None:
    """Tells cuTile which of its dtypes each stand-in dtype is, as it knows
    torch's: a kernel body that names ``torch.int32`` (the library's module
    imported the stand-in) compiles as with ``ct.int32``."""
    import cuda.tile as ct
    from cuda.tile import _cext
    for name in _DTYPES:
        native = getattr(ct, CT_NAMES.get(name, name), None)
        if native is not None and _cext.classify_constant(_dtype(name), False) is None:
            _cext.foreign_dtype_object_register(_dtype(name), native)


def _create(*shape, dtype=None, device="cuda", requires_grad=False, **kwargs) -> Tensor:
    return Tensor(_shape_of(shape), dtype or _dtype("float32"), device=str(device)).requires_grad_(requires_grad)


def _like_creator(x: Tensor, *args, dtype=None, **kwargs) -> Tensor:
    return x._like(dtype=dtype)


def _full(shape, value, dtype=None, device="cuda", **kwargs) -> Tensor:
    return Tensor(_shape_of((shape,) if isinstance(shape, int) else tuple(shape)),
                  dtype or _dtype("float32"), device=str(device))


def _randint(low, high=None, size=None, dtype=None, device="cuda", **kwargs) -> Tensor:
    if size is None:
        raise StandInError("randint without a size")
    return Tensor(_shape_of(tuple(size)), dtype or _dtype("int64"), device=str(device))


def _arange(*args, dtype=None, device="cuda", **kwargs) -> Tensor:
    start, end, step = (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3]
    return Tensor((max(0, math.ceil((end - start) / step)),), dtype or _dtype("int64"), device=str(device))


# torch.finfo / torch.iinfo of the dtypes a launcher sizes a range from.
_LIMITS = {"float16": (-65504.0, 65504.0, 6.103515625e-05), "bfloat16": (-3.3895e38, 3.3895e38, 1.1755e-38),
           "float32": (-3.4028e38, 3.4028e38, 1.1755e-38), "float8_e4m3fn": (-448.0, 448.0, 0.015625),
           "float8_e5m2": (-57344.0, 57344.0, 6.1035e-05), "int8": (-128, 127, 1), "uint8": (0, 255, 1),
           "int16": (-32768, 32767, 1), "int32": (-2**31, 2**31 - 1, 1), "int64": (-2**63, 2**63 - 1, 1)}


def _info(dtype: DType):
    if dtype.name not in _LIMITS:
        raise StandInError(f"the range of torch.{dtype.name} is not known to the stand-in")
    low, high, tiny = _LIMITS[dtype.name]
    return types.SimpleNamespace(min=low, max=high, tiny=tiny, bits=dtype.itemsize * 8, dtype=dtype)


def _as_strided(x: Tensor, size, stride, storage_offset=0) -> Tensor:
    return Tensor(_shape_of(tuple(size)), x.dtype, tuple(stride), x, x.device)


def _nested_shape(data) -> tuple[tuple[int, ...], bool]:
    """The shape of nested lists of numbers, and whether any is a float."""
    if isinstance(data, (list, tuple)):
        inner = [_nested_shape(d) for d in data]
        if len({s for s, _ in inner}) > 1:
            raise StandInError("torch.tensor of ragged nested lists")
        return (len(data),) + (inner[0][0] if inner else ()), any(f for _, f in inner)
    if isinstance(data, Tensor):
        return tuple(data.shape), data.dtype.is_floating_point
    if isinstance(data, bool) or isinstance(data, int):
        return (), False
    if isinstance(data, float):
        return (), True
    raise StandInError(f"torch.tensor of {type(data).__name__}")


def _tensor(data, dtype=None, device="cuda", **kwargs) -> Tensor:
    """``torch.tensor([...])``: the shape and dtype of the data (its values are not kept)."""
    shape, floating = _nested_shape(data)
    return Tensor(shape, dtype or _dtype("float32" if floating else "int64"), device=str(device))


def _empty_strided(size, stride, dtype=None, device="cuda", **kwargs) -> Tensor:
    """``torch.empty_strided``: the allocation spans the furthest element."""
    size, stride = _shape_of(tuple(size)), tuple(stride)
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = Tensor((span,), dtype or _dtype("float32"), device=str(device))
    return Tensor(size, base.dtype, stride, base, base.device)


def _cat(tensors, dim=0, **kwargs) -> Tensor:
    tensors = [t for t in tensors if isinstance(t, Tensor)]
    if not tensors:
        raise StandInError("torch.cat of no tensors")
    shape = list(tensors[0].shape)
    shape[dim] = sum(t.shape[dim] for t in tensors)
    return Tensor(shape, tensors[0].dtype, device=tensors[0].device)


def _stack(tensors, dim=0, **kwargs) -> Tensor:
    tensors = list(tensors)
    shape = list(tensors[0].shape)
    shape.insert(dim % (len(shape) + 1), len(tensors))
    return Tensor(shape, tensors[0].dtype, device=tensors[0].device)


class StandInTorch(types.ModuleType):
    """What ``torch`` is to a case run by the dump step, and to a library it
    imports (:mod:`tileperf_dump.torch_surface`): the torch of one GPU, the
    one named here (by default the H200's 132 SMs, sm_90). What the stand-in
    lacks is a placeholder (``torch.where``): while a library is imported
    it evaluates as placeholders do; called once the import is over (the
    launch), it is a :class:`StandInError` naming it."""

    Tensor = Tensor
    dtype = DType

    def __init__(self, multiprocessors: int = 132, capability: tuple[int, int] = (9, 0),
                 part: str = "NVIDIA H200 SXM", arch: str = "sm_90"):
        super().__init__("torch")
        self.arch = arch
        self.lacking = PlaceholderModule("torch", "torch", stand_in=True)
        for name in _DTYPES:
            setattr(self, name, _dtype(name))
        for alias in _ALIASES:
            setattr(self, alias, _dtype(alias))
        self.randn = self.rand = self.empty = self.zeros = self.ones = _create
        self.randn_like = self.rand_like = self.empty_like = self.zeros_like = _like_creator
        self.ones_like = _like_creator
        self.full = _full
        self.randint = _randint
        self.arange = _arange
        self.isnan = self.isinf = Tensor._no_nan
        self.finfo = self.iinfo = _info
        self.as_strided = _as_strided
        self.amax = self.amin = self.sum = self.logsumexp = Tensor.sum
        self.manual_seed = lambda *a, **k: None
        self.tensor = self.as_tensor = _tensor
        self.empty_strided = _empty_strided
        self.cat = self.concat = _cat
        self.stack = _stack
        self.sort = Tensor.sort
        self.exp, self.log, self.sigmoid, self.tanh = Tensor.exp, Tensor.log, Tensor.sigmoid, Tensor.tanh
        self.clamp, self.gather = Tensor.clamp, Tensor.gather
        self.is_complex, self.is_floating_point = Tensor.is_complex, Tensor.is_floating_point
        self.numel = Tensor.numel
        from tileperf_dump.torch_surface import torch_modules
        self.modules = torch_modules(self, part, capability, multiprocessors)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["lacking"], name)


def array_record(value: Any) -> dict | None:
    """What the launch record keeps of an argument that is a stand-in tensor:
    its shape, strides and dtype, and the bytes of the allocation it views."""
    if not isinstance(value, Tensor):
        return None
    return {"shape": list(value.shape), "strides": list(value.stride()), "dtype": value.dtype.name,
            "bytes": value.storage_elements * value.dtype.itemsize}


def launch_arrays(args: Sequence[Any]) -> tuple[list[dict], int]:
    """The array arguments of a launch (with their parameter index) and the
    bytes of the distinct allocations they view: the floor on what the
    launch moves, each array read or written once."""
    arrays, seen, floor = [], set(), 0
    for index, arg in enumerate(args):
        for value in arg if isinstance(arg, (list, tuple)) else (arg,):  # a list of arrays too
            record = array_record(value)
            if record is None:
                continue
            arrays.append({"parameter": index, **record})
            if id(value.base) not in seen:
                seen.add(id(value.base))
                floor += record["bytes"]
    return arrays, floor
