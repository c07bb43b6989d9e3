"""minilib's GEMM at the sizes minilib is called with, none a multiple of 16
but K, with the hints its launch picks for them."""

import cuda.tile as ct
from tileperf_dump import Config, Problem, array, cdiv

from minilib.kernels.gemm import TILE_K, TILE_M, TILE_N, gemm_kernel, grid, hints


def _config(dtype, m, n, k):
    return Config(
        gemm_kernel.replace_hints(**hints(m, n)),  # as minilib.gemm launches it
        dict(a=array(dtype, like=(m, k)), b=array(dtype, like=(k, n)),
             c=array(dtype, like=(m, n)), TILE_M=TILE_M, TILE_N=TILE_N, TILE_K=TILE_K),
        problem=Problem(grid=grid(m, n), trips={"k": cdiv(k, TILE_K)},
                        sizes=dict(m=m, n=n, k=k)))


CONFIGS = {
    "f16_1000x1000x1024": _config(ct.float16, 1000, 1000, 1024),
    "bf16_4100x3000x1000": _config(ct.bfloat16, 4100, 3000, 1000),
}
