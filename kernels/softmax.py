"""Row softmax over a (rows, N) matrix, one block per row, N == TILE_N.

Numerically stable form: subtract the row maximum, exponentiate with exp2 on
inputs pre-scaled by log2(e) (one MUFU.EX2 per element), divide by the row sum.
"""

import cuda.tile as ct

from tileperf_dump import Config, array

LOG2E = 1.4426950408889634


@ct.kernel
def softmax(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    values = ct.astype(ct.load(x, index=(row, 0), shape=(1, TILE_N)), ct.float32)
    row_max = ct.max(values, axis=1, keepdims=True)
    exps = ct.exp2((values - row_max) * LOG2E)
    row_sum = ct.sum(exps, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=ct.astype(exps / row_sum, y.dtype))


def _config(dtype, n):
    mat = array(dtype, 2)
    return Config(softmax, [mat, mat, n])


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "f32_1024": _config(ct.float32, 1024),
    "f16_4096": _config(ct.float16, 4096),
}
