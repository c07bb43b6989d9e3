"""2-D matrix transpose, y = x.T for a (M, N) matrix x: memory-bound.

Each block loads one (TILE_M, TILE_N) tile of x, swaps its axes in registers
and shared memory, and stores it as a (TILE_N, TILE_M) tile of y at the
mirrored tile index, so both the load and the store stay row-contiguous.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype


@ct.kernel
def transpose(x, y, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    tile = ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N))
    ct.store(y, index=(bn, bm), tile=ct.transpose(tile))


def _case(torch, dtype, tile_m, tile_n, m, n):
    x = torch.randn(m, n, device="cuda").to(torch_dtype(torch, dtype))
    y = torch.empty(n, m, device="cuda", dtype=x.dtype)
    # A permutation of the input: the result must match bit for bit.
    return Case(grid=(cdiv(m, tile_m), cdiv(n, tile_n)), args=(x, y, tile_m, tile_n),
                expected=lambda: {1: x.double().t().contiguous()}, rtol=0.0, atol=0.0)


def _config(dtype, tile_m, tile_n, m, n, big=8192):
    mat = array(dtype, 2)
    return Config(transpose, [mat, mat, tile_m, tile_n],
                  case=lambda torch, m=m, n=n: _case(torch, dtype, tile_m, tile_n, m, n),
                  problem=Problem(grid=(cdiv(big, tile_m), cdiv(big, tile_n)),
                                  sizes=dict(m=big, n=big)))


CONFIGS = {
    "f16_64x64": _config(ct.float16, 64, 64, 1024, 2048),
    "bf16_32x128": _config(ct.bfloat16, 32, 128, 512, 1536),
    "f32_32x32": _config(ct.float32, 32, 32, 768, 1024),
    "f16_128x32": _config(ct.float16, 128, 32, 2048, 640),
}
