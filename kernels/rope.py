"""Rotary position embedding (RoPE, rotate-half / GPT-NeoX layout) applied to
a (tokens, heads, head_dim) tensor, with the angles computed in the kernel.

For token t at position p and frequency index i < head_dim / 2, the angle is
p * base^(-2i / head_dim); the pair (x[i], x[i + head_dim / 2]) is rotated by
it. Each block handles TILE_T tokens and all heads: the inverse frequencies
(one exp2 each), cos and sin are computed once per (token, i) in fp32 and
broadcast across the heads, so the trigonometry scales with tokens, not heads.
cos and sin are the full-precision, range-reduced functions: angles reach
thousands of radians at long positions, beyond what the hardware sin/cos
approximations handle.
"""

import math

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

ROPE_BASE = 10000.0
LOG2_BASE = math.log2(ROPE_BASE)


@ct.kernel
def rope(x, positions, y, TILE_T: ct.Constant[int], HEADS: ct.Constant[int],
         HALF: ct.Constant[int]):
    bt = ct.bid(0)
    pos = ct.astype(ct.load(positions, index=(bt,), shape=(TILE_T,)), ct.float32)
    # inv_freq[i] = base^(-i / HALF) = exp2(-i * log2(base) / HALF)
    idx = ct.astype(ct.arange(HALF, dtype=ct.int32), ct.float32)
    inv_freq = ct.exp2(idx * (-LOG2_BASE / HALF))
    angle = ct.reshape(pos, (TILE_T, 1, 1)) * ct.reshape(inv_freq, (1, 1, HALF))
    cos = ct.cos(angle)
    sin = ct.sin(angle)
    x1 = ct.astype(ct.load(x, index=(bt, 0, 0), shape=(TILE_T, HEADS, HALF)), ct.float32)
    x2 = ct.astype(ct.load(x, index=(bt, 0, 1), shape=(TILE_T, HEADS, HALF)), ct.float32)
    ct.store(y, index=(bt, 0, 0), tile=ct.astype(x1 * cos - x2 * sin, y.dtype))
    ct.store(y, index=(bt, 0, 1), tile=ct.astype(x2 * cos + x1 * sin, y.dtype))


def _case(torch, dtype, tile_t, heads, half, tokens):
    head_dim = 2 * half
    x = torch.randn(tokens, heads, head_dim, device="cuda").to(torch_dtype(torch, dtype))
    positions = torch.randint(0, 1024, (tokens,), device="cuda", dtype=torch.int32)
    y = torch.empty_like(x)

    def expected():
        inv_freq = ROPE_BASE ** (-torch.arange(half, device="cuda", dtype=torch.float64) / half)
        angle = positions.double()[:, None, None] * inv_freq[None, None, :]
        xd = x.double()
        x1, x2 = xd[..., :half], xd[..., half:]
        return {2: torch.cat([x1 * angle.cos() - x2 * angle.sin(),
                              x2 * angle.cos() + x1 * angle.sin()], dim=-1)}

    # Angles up to 1024 rad: the fp32 angle (MUFU.EX2 frequency, rounded product)
    # is off by up to about 3e-4 rad.
    tol = 4e-3 if dtype is ct.float32 else 2e-2
    return Case(grid=(cdiv(tokens, tile_t),), args=(x, positions, y, tile_t, heads, half),
                expected=expected, rtol=tol, atol=tol)


def _config(dtype, tile_t, heads, half, tokens, big_tokens=65536):
    qkv = array(dtype, 3, shape_divisible_by=(16, 1, 16))  # heads: any count
    return Config(rope, [qkv, array(ct.int32, 1), qkv, tile_t, heads, half],
                  case=lambda torch, tokens=tokens: _case(torch, dtype, tile_t, heads, half,
                                                          tokens),
                  problem=Problem(grid=cdiv(big_tokens, tile_t), sizes=dict(tokens=big_tokens)))


CONFIGS = {
    "f16_t1_h32_d128": _config(ct.float16, 1, 32, 64, 64),
    "bf16_t4_h8_d128": _config(ct.bfloat16, 4, 8, 64, 128),
    "f32_t4_h16_d64": _config(ct.float32, 4, 16, 32, 64),
    "bf16_t16_h4_d64": _config(ct.bfloat16, 16, 4, 32, 256),
}
