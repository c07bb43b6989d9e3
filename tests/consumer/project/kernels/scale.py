"""Scaled copy, y = alpha * x, with alpha a runtime scalar."""

import cuda.tile as ct
from cuda.tile.compilation import ScalarConstraint

from tileperf_dump import Case, Config, array, torch_dtype


@ct.kernel
def scale(x, y, alpha, TILE: ct.Constant[int]):
    block = ct.bid(0)
    v = ct.astype(ct.load(x, index=(block,), shape=(TILE,)), ct.float32)
    ct.store(y, index=(block,), tile=ct.astype(v * alpha, y.dtype))


def _case(torch, dtype, tile):
    x = torch.randn(4 * tile, device="cuda").to(torch_dtype(torch, dtype))
    y = torch.empty_like(x)
    return Case(grid=(4,), args=(x, y, 1.5, tile), expected={1: 1.5 * x.double()})


def _config(dtype, tile):
    vec = array(dtype, 1)
    return Config(scale, [vec, vec, ScalarConstraint(ct.float32), tile],
                  case=lambda torch: _case(torch, dtype, tile))


CONFIGS = {
    "f16_512": _config(ct.float16, 512),
    "f32_1024": _config(ct.float32, 1024),
}
