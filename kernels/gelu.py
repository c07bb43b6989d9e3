"""GELU, tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).

Special-function heavy: the tanh uses the hardware approximation
(RoundingMode.APPROX, one MUFU.TANH per element), as fused LLM kernels do.
"""

import math

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@ct.kernel
def gelu(x, y, TILE: ct.Constant[int]):
    block = ct.bid(0)
    v = ct.astype(ct.load(x, index=(block,), shape=(TILE,)), ct.float32)
    inner = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)
    t = ct.tanh(inner, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(y, index=(block,), tile=ct.astype(0.5 * v * (1.0 + t), y.dtype))


def _case(torch, dtype, tile, n=None):
    n = n or 4 * tile
    x = (3 * torch.randn(n, device="cuda")).to(torch_dtype(torch, dtype))
    y = torch.empty_like(x)

    def expected():
        v = x.double()
        return {1: 0.5 * v * (1 + torch.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v ** 3)))}

    # MUFU.TANH is accurate to about 2^-11 relative.
    return Case(grid=(cdiv(n, tile),), args=(x, y, tile), expected=expected,
                rtol=2e-2, atol=5e-3)


def _config(dtype, tile, n=1 << 26):
    vec = array(dtype, 1)
    return Config(gelu, [vec, vec, tile],
                  case=lambda torch, **sizes: _case(torch, dtype, tile, **sizes),
                  problem=Problem(grid=cdiv(n, tile), sizes=dict(n=n)))


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "bf16_4096": _config(ct.bfloat16, 4096),
    "f32_2048": _config(ct.float32, 2048),
    "f16_8192": _config(ct.float16, 8192),
}
