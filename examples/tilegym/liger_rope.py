"""TileGym's cuTile ports of Liger's rotary-embedding kernels (RoPE, Llama-4 RoPE, Qwen2-VL multimodal RoPE), launched by the suite's own ops as Liger's users call them.

Each configuration calls the suite's registered op (an autograd Function's
forward) with fake tensors of a real model's attention heads over a batch
of 2 sequences of 2048 tokens; the kernel is the one the op picks for those
head counts (a power-of-2 count of heads takes the 4D block kernel).
"""
from tilegym.suites.liger.cutile import llama4_rope, qwen2vl_mrope, rope

from tileperf_dump import Config

BATCH, SEQ = 2, 2048


def rope_op(q_heads, kv_heads, head_dim):
    def launch(torch):
        q = torch.empty(BATCH, q_heads, SEQ, head_dim, dtype=torch.bfloat16)
        k = torch.empty(BATCH, kv_heads, SEQ, head_dim, dtype=torch.bfloat16)
        cos, sin = (torch.empty(1, SEQ, head_dim, dtype=torch.bfloat16) for _ in range(2))
        rope.rope(q, k, cos, sin)
    return Config(launch=launch)


def llama4(q_heads, kv_heads, head_dim):
    def launch(torch):
        q = torch.empty(BATCH, SEQ, q_heads, head_dim, dtype=torch.bfloat16)
        k = torch.empty(BATCH, SEQ, kv_heads, head_dim, dtype=torch.bfloat16)
        freqs = torch.empty(SEQ, head_dim, dtype=torch.float32)  # cos and sin interleaved, real
        llama4_rope.llama4_rope(q, k, freqs)
    return Config(launch=launch)


def mrope(q_heads, kv_heads, head_dim, section):
    def launch(torch):
        q = torch.empty(BATCH, q_heads, SEQ, head_dim, dtype=torch.bfloat16)
        k = torch.empty(BATCH, kv_heads, SEQ, head_dim, dtype=torch.bfloat16)
        cos, sin = (torch.empty(3, BATCH, SEQ, head_dim, dtype=torch.bfloat16) for _ in range(2))
        qwen2vl_mrope.qwen2vl_mrope(q, k, cos, sin, section)
    return Config(launch=launch)


CONFIGS = {
    # Llama-3-8B: 32 query heads, 8 KV heads of 128 (the 4D kernel).
    "rope_4d_llama3_8b_s2048": rope_op(32, 8, 128),
    # Qwen2.5-7B: 28 query heads, 4 KV heads of 128 (the 5D kernel).
    "rope_5d_qwen2_5_7b_s2048": rope_op(28, 4, 128),
    # Llama-4-Scout: 40 query heads, 8 KV heads of 128.
    "llama4_rope_scout_s2048": llama4(40, 8, 128),
    # Qwen2.5-VL-3B: 16 query heads, 2 KV heads of 128 (the 4D kernel); Qwen2-VL-7B: 28 and 4.
    "qwen2vl_mrope_4d_qwen2_5_vl_3b_s2048": mrope(16, 2, 128, [16, 24, 24]),
    "qwen2vl_mrope_qwen2_vl_7b_s2048": mrope(28, 4, 128, [16, 24, 24]),
}
