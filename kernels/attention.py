"""Fused multi-head attention forward, O = softmax(Q K^T / sqrt(D)) V.

Q, K, V and O are (BATCH, HEADS, SEQ, HEAD_DIM), row-major, fp16 or bf16.
The grid is (SEQ / TILE_M, HEADS, BATCH): each block owns TILE_M query rows of
one head and streams K and V in TILE_N-row tiles (flash-attention style), so
the SEQ x SEQ score matrix never leaves the chip. Both products run on tensor
cores with fp32 accumulators; the softmax is computed online with a running
row maximum and row sum, exp2 on scores pre-scaled by log2(e) / sqrt(D),
one rescale of the output accumulator per key tile, and one reciprocal per
query row for the final normalisation.

With CAUSAL, key tiles entirely at or before the block's first query are
processed without a mask; only the TILE_M / TILE_N tiles on the diagonal
apply the (query >= key) mask, and tiles past the diagonal are skipped.

Configurations with 128-row query tiles run 8 worker warps (two warpgroups
sharing the rows), which keeps the fp32 score and output accumulators in
registers; 64-row tiles run the default 4.
"""

import math

import cuda.tile as ct

from tileperf_dump import Case, Config, Problem, array, cdiv, torch_dtype

LOG2E = 1.4426950408889634


def _attend(q, k, v, batch, head, key_tile, m_i, l_i, acc, qk_scale, mask,
            TILE_N, HEAD_DIM):
    """One online-softmax step over key tile ``key_tile``; ``mask`` is None
    or a (TILE_M, TILE_N) boolean tile of the visible scores."""
    k_t = ct.load(k, index=(batch, head, 0, key_tile), shape=(1, 1, HEAD_DIM, TILE_N),
                  order=(0, 1, 3, 2))
    scores = ct.mma(q, ct.reshape(k_t, (HEAD_DIM, TILE_N)),
                    ct.zeros((q.shape[0], TILE_N), dtype=ct.float32))
    scores = scores * qk_scale
    if mask is not None:
        scores = ct.where(mask, scores, -math.inf)
    m_new = ct.maximum(m_i, ct.max(scores, axis=1, keepdims=True))
    p = ct.exp2(scores - m_new, flush_to_zero=True)
    alpha = ct.exp2(m_i - m_new, flush_to_zero=True)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    v_tile = ct.load(v, index=(batch, head, key_tile, 0), shape=(1, 1, TILE_N, HEAD_DIM))
    acc = ct.mma(ct.astype(p, v.dtype), ct.reshape(v_tile, (TILE_N, HEAD_DIM)), acc * alpha)
    return m_new, l_i, acc


@ct.kernel
def attention(q, k, v, o, HEAD_DIM: ct.Constant[int], TILE_M: ct.Constant[int],
              TILE_N: ct.Constant[int], CAUSAL: ct.Constant[bool]):
    query_tile = ct.bid(0)
    head = ct.bid(1)
    batch = ct.bid(2)
    qk_scale = ct.static_eval(LOG2E / math.sqrt(HEAD_DIM))

    q_tile = ct.load(q, index=(batch, head, query_tile, 0), shape=(1, 1, TILE_M, HEAD_DIM))
    q_tile = ct.reshape(q_tile, (TILE_M, HEAD_DIM))
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((TILE_M, 1), dtype=ct.float32)
    acc = ct.zeros((TILE_M, HEAD_DIM), dtype=ct.float32)

    if CAUSAL:
        diagonal = query_tile * (TILE_M // TILE_N)
        for j in range(diagonal):
            m_i, l_i, acc = _attend(q_tile, k, v, batch, head, j, m_i, l_i, acc, qk_scale,
                                    None, TILE_N, HEAD_DIM)
        rows = query_tile * TILE_M + ct.arange(TILE_M, dtype=ct.int32)
        for j in range(diagonal, diagonal + TILE_M // TILE_N):
            cols = j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
            visible = ct.expand_dims(rows, 1) >= ct.expand_dims(cols, 0)
            m_i, l_i, acc = _attend(q_tile, k, v, batch, head, j, m_i, l_i, acc, qk_scale,
                                    visible, TILE_N, HEAD_DIM)
    else:
        for j in range(ct.num_tiles(k, 2, shape=(1, 1, TILE_N, HEAD_DIM))):
            m_i, l_i, acc = _attend(q_tile, k, v, batch, head, j, m_i, l_i, acc, qk_scale,
                                    None, TILE_N, HEAD_DIM)

    # One reciprocal per query row, then a multiply per element.
    out = ct.astype(acc * (1.0 / l_i), o.dtype)
    ct.store(o, index=(batch, head, query_tile, 0), tile=ct.reshape(out, (1, 1, TILE_M, HEAD_DIM)))


def _case(torch, dtype, head_dim, tile_m, tile_n, causal, batch=2, heads=4, seq=512):
    tdtype = torch_dtype(torch, dtype)
    q, k, v = (torch.randn(batch, heads, seq, head_dim, device="cuda").to(tdtype)
               for _ in range(3))
    o = torch.empty_like(q)

    def expected():
        scores = torch.matmul(q.double(), k.double().transpose(-1, -2)) / math.sqrt(head_dim)
        if causal:
            visible = torch.ones(seq, seq, dtype=torch.bool, device="cuda").tril()
            scores = scores.masked_fill(~visible, float("-inf"))
        return {3: torch.matmul(torch.softmax(scores, dim=-1), v.double())}

    # P is rounded to the input dtype before the P @ V product, as in every
    # flash-attention kernel: about 2^-8 relative error per weight for bf16.
    return Case(grid=(cdiv(seq, tile_m), heads, batch),
                args=(q, k, v, o, head_dim, tile_m, tile_n, causal),
                expected=expected, rtol=2e-2, atol=2e-2)


def _problem(tile_m, batch=4, heads=16, seq=4096):
    return Problem(grid=(cdiv(seq, tile_m), heads, batch), sizes=dict(batch=batch, heads=heads, seq=seq))


def _config(dtype, head_dim, tile_m, tile_n, causal):
    t = array(dtype, 4, shape_divisible_by=(1, 1, 16, 16))  # batch and heads: any count
    kernel = attention.replace_hints(num_worker_warps=8 if tile_m == 128 else 4)
    return Config(kernel, [t, t, t, t, head_dim, tile_m, tile_n, causal],
                  case=lambda torch, **sizes: _case(torch, dtype, head_dim, tile_m, tile_n, causal,
                                                    **sizes),
                  problem=_problem(tile_m))


CONFIGS = {
    "f16_d64": _config(ct.float16, 64, 128, 64, False),
    "f16_d64_causal": _config(ct.float16, 64, 128, 64, True),
    "bf16_d64_causal": _config(ct.bfloat16, 64, 128, 64, True),
    "f16_d128": _config(ct.float16, 128, 128, 64, False),
    "f16_d128_causal": _config(ct.float16, 128, 128, 64, True),
    "bf16_d128": _config(ct.bfloat16, 128, 128, 64, False),
    "bf16_d128_causal_64x64": _config(ct.bfloat16, 128, 64, 64, True),
}
