"""SwiGLU activation of LLM MLP blocks: y = silu(gate) * up, where the input
row is [gate | up], x has shape (rows, 2 * D) and y has shape (rows, D).

Each block handles one (TILE_R, TILE_D) tile of y: it loads the matching gate
tile and the up tile D columns further, and computes silu in fp32 with an
exp2-based sigmoid on pre-scaled inputs and an approximate division (one
MUFU.EX2 and one MUFU.RCP per element).
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

LOG2E = 1.4426950408889634


@ct.kernel
def silu_and_mul(x, y, TILE_R: ct.Constant[int], TILE_D: ct.Constant[int]):
    br = ct.bid(0)
    bd = ct.bid(1)
    up_offset = ct.num_tiles(y, 1, shape=(TILE_R, TILE_D))
    gate = ct.astype(ct.load(x, index=(br, bd), shape=(TILE_R, TILE_D)), ct.float32)
    up = ct.astype(ct.load(x, index=(br, bd + up_offset), shape=(TILE_R, TILE_D)), ct.float32)
    denom = 1.0 + ct.exp2(gate * -LOG2E)
    silu = ct.truediv(gate, denom, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(y, index=(br, bd), tile=ct.astype(silu * up, y.dtype))


def _case(torch, dtype, tile_r, tile_d, rows, d):
    x = (3 * torch.randn(rows, 2 * d, device="cuda")).to(torch_dtype(torch, dtype))
    y = torch.empty(rows, d, device="cuda", dtype=x.dtype)

    def expected():
        gate, up = x.double()[:, :d], x.double()[:, d:]
        return {1: gate * torch.sigmoid(gate) * up}

    tol = 1e-4 if dtype is ct.float32 else 2e-2
    return Case(grid=(cdiv(rows, tile_r), cdiv(d, tile_d)), args=(x, y, tile_r, tile_d),
                expected=expected, rtol=tol, atol=tol)


def _config(dtype, tile_r, tile_d, rows, d, big_rows=16384):
    mat = array(dtype, 2)
    return Config(silu_and_mul, [mat, mat, tile_r, tile_d],
                  case=lambda torch, rows=rows: _case(torch, dtype, tile_r, tile_d, rows, d),
                  problem=Problem(grid=(cdiv(big_rows, tile_r), cdiv(d, tile_d)),
                                  sizes=dict(rows=big_rows)))


CONFIGS = {
    "f16_4x512": _config(ct.float16, 4, 512, 64, 2048),
    "bf16_1x2048": _config(ct.bfloat16, 1, 2048, 32, 4096),
    "f32_2x1024": _config(ct.float32, 2, 1024, 32, 2048),
    "bf16_8x256": _config(ct.bfloat16, 8, 256, 64, 14336),
}
