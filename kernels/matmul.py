"""Dense GEMM, C = A @ B, on tensor cores.

A is (M, K), B is (K, N), C is (M, N), all row-major in the same fp16 or bf16
dtype. Each block owns one TILE_M x TILE_N tile of C: it walks K in TILE_K
steps, feeding each pair of input tiles to ``ct.mma`` with an fp32
accumulator, and rounds to the output dtype once at the end.

The grid is one-dimensional. Block ids are mapped to output tiles in groups
of GROUP_M tile rows (column-major inside a group), so that blocks running at
the same time reuse the same B column panel and A row panel from L2.
GROUP_M == 1 is the plain row-major order.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype


@ct.kernel
def matmul(a, b, c, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
           TILE_K: ct.Constant[int], GROUP_M: ct.Constant[int]):
    block = ct.bid(0)
    tiles_m = ct.num_tiles(c, 0, shape=(TILE_M, TILE_N))
    tiles_n = ct.num_tiles(c, 1, shape=(TILE_M, TILE_N))

    # Grouped ("swizzled") block order over the output tiles.
    per_group = GROUP_M * tiles_n
    group = block // per_group
    first_m = group * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (block % per_group) % rows_in_group
    tile_n = (block % per_group) // rows_in_group

    acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 1, shape=(TILE_M, TILE_K))):
        lhs = ct.load(a, index=(tile_m, k), shape=(TILE_M, TILE_K))
        rhs = ct.load(b, index=(k, tile_n), shape=(TILE_K, TILE_N))
        acc = ct.mma(lhs, rhs, acc)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


def _case(torch, dtype, tile_m, tile_n, tile_k, group_m, m=512, n=512, k=512):
    tdtype = torch_dtype(torch, dtype)
    a = torch.randn(m, k, device="cuda").to(tdtype)
    b = torch.randn(k, n, device="cuda").to(tdtype)
    c = torch.empty(m, n, device="cuda", dtype=tdtype)
    grid = (cdiv(m, tile_m) * cdiv(n, tile_n),)
    # fp32 accumulation over K=512 products of unit-variance values (|C| ~ 22);
    # the output rounding dominates: 2^-8 relative for bf16, 2^-11 for fp16.
    return Case(grid=grid, args=(a, b, c, tile_m, tile_n, tile_k, group_m),
                expected=lambda: {2: torch.matmul(a.double(), b.double())}, rtol=1e-2, atol=5e-2)


def _problem(tile_m, tile_n, m=8192, n=8192, k=8192):
    return Problem(grid=cdiv(m, tile_m) * cdiv(n, tile_n), sizes=dict(m=m, n=n, k=k))


def _config(dtype, tile_m, tile_n, tile_k, group_m=8):
    mat = array(dtype, 2)
    return Config(matmul, [mat, mat, mat, tile_m, tile_n, tile_k, group_m],
                  case=lambda torch, **sizes: _case(torch, dtype, tile_m, tile_n, tile_k, group_m,
                                                    **sizes),
                  problem=_problem(tile_m, tile_n))


CONFIGS = {
    "f16_128x128x64": _config(ct.float16, 128, 128, 64),
    "bf16_128x128x64": _config(ct.bfloat16, 128, 128, 64),
    "f16_128x64x32": _config(ct.float16, 128, 64, 32),
    "bf16_64x64x64": _config(ct.bfloat16, 64, 64, 64),
    "f16_64x128x64_rowmajor": _config(ct.float16, 64, 128, 64, group_m=1),
}
