"""What a kernel's array parameters assume: :func:`array` builds the
``ArrayConstraint`` a configuration gives a parameter, :func:`jit_assumptions`
what cuTile's JIT infers from an array of a given shape."""

from __future__ import annotations

from typing import Any, Sequence

import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint

JIT_MAX_NDIM = 5  # cuTile's JIT infers no divisibility beyond 5 dimensions


def _disjoint(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether no two elements share an address: in the order of increasing
    stride (then size), every stride is positive and at least the previous
    stride times the previous size."""
    dims = sorted(zip(strides, shape))
    return all(s > 0 for s, _ in dims[:1]) and all(
        s > 0 and s >= ps * pn for (ps, pn), (s, _) in zip(dims, dims[1:]))


def jit_assumptions(dtype, shape: Sequence[int],
                    strides: Sequence[int] | None = None) -> dict[str, Any]:
    """The ``ArrayConstraint`` fields that cuTile's JIT (``ct.launch``) infers
    from an array of this shape and these strides (in elements; default:
    row-major contiguous). Up to 5 dimensions, a dimension is divisible by 16
    when its size is, else by 1, and a size of 1 is a constant; a stride is
    divisible by the elements of 16 bytes when its bytes are, else by 1, and a
    stride of 1 is a constant. The array may alias itself unless its elements
    are disjoint (a broadcast stride of 0 is not). The base address (16 when
    it is aligned, else 1) and the index type (int32) are not part of it."""
    shape = tuple(shape)
    if strides is None:
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
    strides = tuple(strides)
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} do not match shape {shape}")
    per_16_bytes = 128 // dtype.bitwidth if 128 % dtype.bitwidth == 0 else 1
    inferred = len(shape) <= JIT_MAX_NDIM
    return dict(
        shape_constant=tuple(1 if inferred and d == 1 else None for d in shape),
        shape_divisible_by=tuple(16 if inferred and d % 16 == 0 else 1 for d in shape),
        stride_constant=tuple(1 if inferred and s == 1 else None for s in strides),
        stride_divisible_by=tuple(per_16_bytes if inferred and s * dtype.bitwidth % 128 == 0
                                  else 1 for s in strides),
        may_alias_internally=not _disjoint(shape, strides),
    )


def array(dtype, ndim: int | None = None, *, like: Sequence[int] | None = None,
          strides: Sequence[int] | None = None, contiguous: bool | None = None,
          align_bytes: int = 16, shape_divisible_by: int | Sequence[int] | None = None,
          index_dtype=ct.int32, **overrides: Any) -> ArrayConstraint:
    """An ``ArrayConstraint`` with the assumptions a kernel library usually
    guarantees: row-major with a contiguous last dimension, rows and base
    address aligned to ``align_bytes``, no aliasing between arguments, and
    every dimension a multiple of ``shape_divisible_by`` (16).

    ``like=(4096, 1000)`` (with ``strides``, in elements, for a view that is
    not row-major contiguous) instead states per dimension what cuTile's JIT
    infers from an array of that shape (see :func:`jit_assumptions`): the
    configuration of a launch whose sizes are not multiples of 16. Keyword
    ``overrides`` replace any ``ArrayConstraint`` field."""
    if like is not None:
        if contiguous is not None or shape_divisible_by is not None:
            raise TypeError("array(): like= states the divisibility and the strides; "
                            "give contiguous= and shape_divisible_by= without it")
        if ndim is not None and ndim != len(like):
            raise ValueError(f"array(): ndim {ndim} does not match like={tuple(like)}")
        return _array(dtype, len(like), align_bytes, index_dtype,
                      {**jit_assumptions(dtype, like, strides), **overrides})
    if ndim is None:
        raise TypeError("array(): give ndim, or like= with an example shape")
    if strides is not None:
        raise TypeError("array(): strides= describes the example of like=")
    elems = max(1, align_bytes * 8 // dtype.bitwidth)
    fields: dict[str, Any] = dict(shape_divisible_by=16 if shape_divisible_by is None
                                  else shape_divisible_by)
    if contiguous is None or contiguous:
        fields["stride_constant"] = (None,) * (ndim - 1) + (1,)
        fields["stride_divisible_by"] = (elems,) * (ndim - 1) + (1,)
    return _array(dtype, ndim, align_bytes, index_dtype, {**fields, **overrides})


def _array(dtype, ndim: int, align_bytes: int, index_dtype, fields: dict) -> ArrayConstraint:
    return ArrayConstraint(dtype, ndim, **{
        "index_dtype": index_dtype, "stride_lower_bound_incl": 0, "alias_groups": (),
        "may_alias_internally": False, "base_addr_divisible_by": align_bytes, **fields})


def torch_dtype(torch, dtype):
    """The torch dtype of a cuTile dtype (float16 -> torch.float16, ...)."""
    return getattr(torch, dtype.name)
