"""TileGym's Unsloth rotary embedding kernels (Q alone, and Q with K), launched by the suite's autograd Functions as their users call them.

Shapes of Llama-3-8B (32 query heads and 8 KV heads of 128) for 2
sequences of 4096 tokens, with cos/sin tables of 8192 positions; the
functions tune the occupancy: the gate answers with occupancy 1, the
kernel's own hint. Their backward launches are autograd's.
"""
from tilegym.suites.unsloth.cutile import rope_embedding as rope

from tileperf_dump import Config

BATCH, SEQ, HEADS, KV_HEADS, HEAD_DIM, POSITIONS = 2, 4096, 32, 8, 128, 8192  # Llama-3-8B


def tables(torch):
    return (torch.empty(POSITIONS, HEAD_DIM, dtype=torch.bfloat16),
            torch.empty(POSITIONS, HEAD_DIM, dtype=torch.bfloat16))


def q_only():
    def launch(torch):
        rope.rope_embedding(torch.empty(BATCH, SEQ, HEADS, HEAD_DIM, dtype=torch.bfloat16), *tables(torch))
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


def q_and_k():
    def launch(torch):
        q = torch.empty(BATCH, HEADS, SEQ, HEAD_DIM, dtype=torch.bfloat16)
        k = torch.empty(BATCH, KV_HEADS, SEQ, HEAD_DIM, dtype=torch.bfloat16)
        rope.rope_embedding_qk(q, k, *tables(torch))
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


CONFIGS = {
    "rope_q_b2_s4096_h32_d128": q_only(),
    "rope_qk_b2_s4096_h32_kv8_d128": q_and_k(),
}
