"""RMSNorm over the last dimension, y = x / rms(x) * w, one block per row,
for any hidden size (the row is padded to a power of two with zeros)."""

import cuda.tile as ct
import torch

from minilib.utils import CUTILE_DTYPES, next_power_of_2, stream

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def rms_norm_kernel(x, w, y, eps, TILE: ct.Constant[int]):
    row = ct.bid(0)
    v = ct.astype(ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ZERO), ct.float32)
    mean_square = ct.sum(v * v, axis=1, keepdims=True) / x.shape[1]
    scale = ct.rsqrt(mean_square + eps)
    weight = ct.astype(ct.load(w, index=(0,), shape=(TILE,), padding_mode=ZERO), ct.float32)
    out = v * scale * ct.reshape(weight, (1, TILE))
    ct.store(y, index=(row, 0), tile=ct.astype(out, y.dtype))


def hints(hidden: int) -> dict:
    """Short rows leave registers to spare: four blocks per SM."""
    return dict(occupancy=4 if hidden <= 2048 else 1)


@torch.library.custom_op("minilib::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    assert x.dtype in CUTILE_DTYPES
    y = torch.empty_like(x)
    kernel = rms_norm_kernel.replace_hints(**hints(x.shape[1]))
    ct.launch(stream(), (x.shape[0],), kernel, (x, w, y, eps, next_power_of_2(x.shape[1])))
    return y
