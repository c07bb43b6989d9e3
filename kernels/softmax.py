"""Row softmax over a (rows, N) matrix, one block per row, N == TILE_N.

Numerically stable form: subtract the row maximum, exponentiate with exp2 on
inputs pre-scaled by log2(e) (one MUFU.EX2 per element), and scale by the
reciprocal of the row sum, computed once per row.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

LOG2E = 1.4426950408889634


@ct.kernel
def softmax(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    values = ct.astype(ct.load(x, index=(row, 0), shape=(1, TILE_N)), ct.float32)
    row_max = ct.max(values, axis=1, keepdims=True)
    exps = ct.exp2((values - row_max) * LOG2E)
    row_sum = ct.sum(exps, axis=1, keepdims=True)
    inv_sum = 1.0 / row_sum
    ct.store(y, index=(row, 0), tile=ct.astype(exps * inv_sum, y.dtype))


def _case(torch, dtype, n, rows=16):
    x = (4 * torch.randn(rows, n, device="cuda")).to(torch_dtype(torch, dtype))
    y = torch.empty_like(x)
    return Case(grid=(rows,), args=(x, y, n),
                expected=lambda: {1: torch.softmax(x.double(), dim=1)}, rtol=1e-2, atol=1e-4)


def _config(dtype, n, rows=32768):
    mat = array(dtype, 2)
    return Config(softmax, [mat, mat, n],
                  case=lambda torch, **sizes: _case(torch, dtype, n, **sizes),
                  problem=Problem(grid=rows, sizes=dict(rows=rows)))


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "f32_1024": _config(ct.float32, 1024),
    "f16_4096": _config(ct.float16, 4096),
    "bf16_2048": _config(ct.bfloat16, 2048),
}
