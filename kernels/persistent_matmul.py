"""Persistent GEMM, C = A @ B, on tensor cores.

A is (M, K), B is (K, N), C is (M, N), row-major, fp16 or bf16. The grid is
fixed (typically one block per SM) and independent of the problem size: block
``b`` computes output tiles b, b + G, b + 2G, ... where G = ``ct.num_blocks(0)``,
so launch overhead and the tail wave are paid once. Tile ids are mapped to
(row, column) in groups of GROUP_M tile rows for L2 reuse. Each tile walks K
in TILE_K steps with an fp32 ``ct.mma`` accumulator.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

H200_SMS = 132  # the grid of the declared problem: one block per SM of an H200


@ct.kernel
def persistent_matmul(a, b, c, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
                      TILE_K: ct.Constant[int], GROUP_M: ct.Constant[int]):
    tiles_m = ct.num_tiles(c, 0, shape=(TILE_M, TILE_N))
    tiles_n = ct.num_tiles(c, 1, shape=(TILE_M, TILE_N))
    tiles_k = ct.num_tiles(a, 1, shape=(TILE_M, TILE_K))
    per_group = GROUP_M * tiles_n

    for tile in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        first_m = (tile // per_group) * GROUP_M
        rows_in_group = min(tiles_m - first_m, GROUP_M)
        tile_m = first_m + (tile % per_group) % rows_in_group
        tile_n = (tile % per_group) // rows_in_group

        acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
        for k in range(tiles_k):
            lhs = ct.load(a, index=(tile_m, k), shape=(TILE_M, TILE_K))
            rhs = ct.load(b, index=(k, tile_n), shape=(TILE_K, TILE_N))
            acc = ct.mma(lhs, rhs, acc)
        ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


def _blocks(tiles, sms):
    """Fewer blocks than tiles, so that every block loops over several tiles."""
    return min(sms, max(1, tiles // 3))


def _case(torch, dtype, tile_m, tile_n, tile_k, group_m, m=1024, n=1024, k=512):
    tdtype = torch_dtype(torch, dtype)
    a = torch.randn(m, k, device="cuda").to(tdtype)
    b = torch.randn(k, n, device="cuda").to(tdtype)
    c = torch.empty(m, n, device="cuda", dtype=tdtype)
    tiles = cdiv(m, tile_m) * cdiv(n, tile_n)
    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return Case(grid=(_blocks(tiles, sms),), args=(a, b, c, tile_m, tile_n, tile_k, group_m),
                expected=lambda: {2: torch.matmul(a.double(), b.double())}, rtol=1e-2, atol=5e-2)


def _problem(tile_m, tile_n, m=8192, n=8192, k=8192, sms=H200_SMS):
    return Problem(grid=_blocks(cdiv(m, tile_m) * cdiv(n, tile_n), sms), sizes=dict(m=m, n=n, k=k))


def _config(dtype, tile_m, tile_n, tile_k, group_m=8):
    mat = array(dtype, 2)
    return Config(persistent_matmul, [mat, mat, mat, tile_m, tile_n, tile_k, group_m],
                  case=lambda torch, **sizes: _case(torch, dtype, tile_m, tile_n, tile_k, group_m,
                                                    **sizes),
                  problem=_problem(tile_m, tile_n))


CONFIGS = {
    "f16_128x128x64": _config(ct.float16, 128, 128, 64),
    "bf16_128x128x64": _config(ct.bfloat16, 128, 128, 64),
    "f16_128x64x64": _config(ct.float16, 128, 64, 64),
    "bf16_64x128x32": _config(ct.bfloat16, 64, 128, 32),
}
