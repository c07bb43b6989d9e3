"""LayerNorm over the last dimension of a (rows, N) matrix, one block per row.

y = (x - mean) * rsqrt(var + eps) * weight + bias, with N == TILE_N. The row
is upcast to fp32 once; mean and biased variance are both taken from that
register-resident tile (two reductions, one read of x), and the normalisation
uses a single MUFU.RSQ per row.
"""

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

EPS = 1e-5


@ct.kernel
def layer_norm(x, weight, bias, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    v = ct.astype(ct.load(x, index=(row, 0), shape=(1, TILE_N)), ct.float32)
    mean = ct.sum(v, axis=1, keepdims=True) * (1.0 / TILE_N)
    centered = v - mean
    var = ct.sum(centered * centered, axis=1, keepdims=True) * (1.0 / TILE_N)
    rstd = ct.rsqrt(var + EPS)
    w = ct.astype(ct.load(weight, index=(0,), shape=(TILE_N,)), ct.float32)
    b = ct.astype(ct.load(bias, index=(0,), shape=(TILE_N,)), ct.float32)
    out = centered * rstd * w + b
    ct.store(y, index=(row, 0), tile=ct.astype(out, y.dtype))


def _case(torch, dtype, n, rows=32):
    tdt = torch_dtype(torch, dtype)
    x = (2 * torch.randn(rows, n, device="cuda") + 0.5).to(tdt)
    weight = (1 + 0.1 * torch.randn(n, device="cuda")).to(tdt)
    bias = (0.1 * torch.randn(n, device="cuda")).to(tdt)
    y = torch.empty_like(x)
    tol = 1e-4 if dtype is ct.float32 else 2e-2
    return Case(grid=(rows,), args=(x, weight, bias, y, n),
                expected=lambda: {3: torch.nn.functional.layer_norm(
                    x.double(), (n,), weight.double(), bias.double(), EPS)},
                rtol=tol, atol=tol)


def _config(dtype, n, rows=32768):
    mat, vec = array(dtype, 2), array(dtype, 1)
    return Config(layer_norm, [mat, vec, vec, mat, n],
                  case=lambda torch, **sizes: _case(torch, dtype, n, **sizes),
                  problem=Problem(grid=rows, sizes=dict(rows=rows)))


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "bf16_2048": _config(ct.bfloat16, 2048),
    "f32_1024": _config(ct.float32, 1024),
    "bf16_4096": _config(ct.bfloat16, 4096),
}
