"""RMSNorm over the last dimension of a (rows, N) matrix, one block per row.

y = x * rsqrt(mean(x^2) + eps) * weight, with N == TILE_N, as in Llama-style
decoder layers. The sum of squares is accumulated in fp32 and the scale is one
MUFU.RSQ per row; the weight multiply is fused into the same pass.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

EPS = 1e-6


@ct.kernel
def rms_norm(x, weight, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    v = ct.astype(ct.load(x, index=(row, 0), shape=(1, TILE_N)), ct.float32)
    mean_sq = ct.sum(v * v, axis=1, keepdims=True) * (1.0 / TILE_N)
    scale = ct.rsqrt(mean_sq + EPS)
    w = ct.astype(ct.load(weight, index=(0,), shape=(TILE_N,)), ct.float32)
    ct.store(y, index=(row, 0), tile=ct.astype(v * scale * w, y.dtype))


def _case(torch, dtype, n, rows=32):
    tdt = torch_dtype(torch, dtype)
    x = (2 * torch.randn(rows, n, device="cuda")).to(tdt)
    weight = (1 + 0.1 * torch.randn(n, device="cuda")).to(tdt)
    y = torch.empty_like(x)

    def expected():
        xd = x.double()
        return {2: xd * torch.rsqrt(xd.pow(2).mean(dim=1, keepdim=True) + EPS) * weight.double()}

    tol = 1e-4 if dtype is ct.float32 else 2e-2
    return Case(grid=(rows,), args=(x, weight, y, n), expected=expected, rtol=tol, atol=tol)


def _config(dtype, n, rows=32768):
    mat, vec = array(dtype, 2), array(dtype, 1)
    return Config(rms_norm, [mat, vec, mat, n],
                  case=lambda torch, **sizes: _case(torch, dtype, n, **sizes),
                  problem=Problem(grid=rows, sizes=dict(rows=rows)))


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "bf16_4096": _config(ct.bfloat16, 4096),
    "f32_2048": _config(ct.float32, 2048),
    "bf16_8192": _config(ct.bfloat16, 8192),
}
