"""Elementwise vector add, c = a + b: the memory-bound baseline of the suite.

Each block loads one TILE-element tile of a and b, adds them in fp32 and
stores the result in the output dtype.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype


@ct.kernel
def vector_add(a, b, c, TILE: ct.Constant[int]):
    block = ct.bid(0)
    x = ct.load(a, index=(block,), shape=(TILE,))
    y = ct.load(b, index=(block,), shape=(TILE,))
    total = ct.astype(x, ct.float32) + ct.astype(y, ct.float32)
    ct.store(c, index=(block,), tile=ct.astype(total, c.dtype))


def _case(torch, dtype, tile, n=None):
    n = n or 4 * tile
    a, b = (torch.randn(n, device="cuda").to(torch_dtype(torch, dtype)) for _ in range(2))
    c = torch.empty_like(a)
    return Case(grid=(cdiv(n, tile),), args=(a, b, c, tile),
                expected=lambda: {2: a.double() + b.double()})


def _config(dtype, tile, n=1 << 26):
    vec = array(dtype, 1)
    return Config(vector_add, [vec, vec, vec, tile],
                  case=lambda torch, **sizes: _case(torch, dtype, tile, **sizes),
                  problem=Problem(grid=cdiv(n, tile), sizes=dict(n=n)))


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "bf16_2048": _config(ct.bfloat16, 2048),
    "f32_4096": _config(ct.float32, 4096),
    "f16_256": _config(ct.float16, 256),
}
