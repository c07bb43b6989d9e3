"""GELU, tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).

Special-function heavy: the tanh uses the hardware approximation
(RoundingMode.APPROX, one MUFU.TANH per element), as fused LLM kernels do.
"""

import math

import cuda.tile as ct

from tileperf_dump import Config, array

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@ct.kernel
def gelu(x, y, TILE: ct.Constant[int]):
    block = ct.bid(0)
    v = ct.astype(ct.load(x, index=(block,), shape=(TILE,)), ct.float32)
    inner = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)
    t = ct.tanh(inner, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(y, index=(block,), tile=ct.astype(0.5 * v * (1.0 + t), y.dtype))


def _config(dtype, tile):
    vec = array(dtype, 1)
    return Config(gelu, [vec, vec, tile])


CONFIGS = {
    "f16_1024": _config(ct.float16, 1024),
    "bf16_4096": _config(ct.bfloat16, 4096),
    "f32_2048": _config(ct.float32, 2048),
}
