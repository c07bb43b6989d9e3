"""Batched GEMM, C[b] = A[b] @ B[b], on tensor cores.

A is (BATCH, M, K), B is (BATCH, K, N), C is (BATCH, M, N), all row-major in
the same fp16 or bf16 dtype, as in the per-head projections of an attention
layer. The grid is (M / TILE_M, N / TILE_N, BATCH): each block owns one
output tile of one batch entry, walks K in TILE_K steps with an fp32
``ct.mma`` accumulator, and rounds to the output dtype once at the end.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype


@ct.kernel
def batched_matmul(a, b, c, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
                   TILE_K: ct.Constant[int]):
    tile_m = ct.bid(0)
    tile_n = ct.bid(1)
    batch = ct.bid(2)

    acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for k in range(ct.num_tiles(a, 2, shape=(1, TILE_M, TILE_K))):
        lhs = ct.load(a, index=(batch, tile_m, k), shape=(1, TILE_M, TILE_K))
        rhs = ct.load(b, index=(batch, k, tile_n), shape=(1, TILE_K, TILE_N))
        acc = ct.mma(ct.reshape(lhs, (TILE_M, TILE_K)), ct.reshape(rhs, (TILE_K, TILE_N)), acc)
    out = ct.reshape(ct.astype(acc, c.dtype), (1, TILE_M, TILE_N))
    ct.store(c, index=(batch, tile_m, tile_n), tile=out)


def _case(torch, dtype, tile_m, tile_n, tile_k, batch=4, m=256, n=256, k=512):
    tdtype = torch_dtype(torch, dtype)
    a = torch.randn(batch, m, k, device="cuda").to(tdtype)
    b = torch.randn(batch, k, n, device="cuda").to(tdtype)
    c = torch.empty(batch, m, n, device="cuda", dtype=tdtype)
    grid = (cdiv(m, tile_m), cdiv(n, tile_n), batch)
    # fp32 accumulation; the final rounding to fp16/bf16 dominates the error.
    return Case(grid=grid, args=(a, b, c, tile_m, tile_n, tile_k),
                expected=lambda: {2: torch.matmul(a.double(), b.double())}, rtol=1e-2, atol=5e-2)


def _problem(tile_m, tile_n, batch=16, m=2048, n=2048, k=2048):
    return Problem(grid=(cdiv(m, tile_m), cdiv(n, tile_n), batch), sizes=dict(batch=batch, m=m, n=n, k=k))


def _config(dtype, tile_m, tile_n, tile_k):
    mat = array(dtype, 3, shape_divisible_by=(1, 16, 16))  # batch: any count
    return Config(batched_matmul, [mat, mat, mat, tile_m, tile_n, tile_k],
                  case=lambda torch, **sizes: _case(torch, dtype, tile_m, tile_n, tile_k, **sizes),
                  problem=_problem(tile_m, tile_n))


CONFIGS = {
    "f16_128x128x64": _config(ct.float16, 128, 128, 64),
    "bf16_128x128x64": _config(ct.bfloat16, 128, 128, 64),
    "f16_64x64x32": _config(ct.float16, 64, 64, 32),
    "bf16_128x64x64": _config(ct.bfloat16, 128, 64, 64),
}
