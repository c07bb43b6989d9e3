"""TileGym's cuTile split-KV decode attention kernels (FMHA decode, attention sinks, Gemma) and their split-K reduction, launched by TileGym's public ops.

Each configuration calls the op as a user does: one new token per sequence
against a long KV cache of a real model (Llama-3-8B: 32 heads, 8 KV heads,
head dim 128; gpt-oss-20b for attention sinks; Gemma-2-9B for Gemma's
decode). TileGym sizes the KV splits from the architecture's SM count; the
split-K reduction is the second launch of the FMHA decode op.
"""
from tilegym.ops.cutile import attention_sink_decode, flash_decode, gemma_attention_decode, splitk_reduce

from tileperf_dump import Config


def decode_qkv(torch, batch, kv_len, heads, kv_heads, dim):
    """q [batch, heads, 1, dim], k and v [batch, kv_heads, kv_len, dim], bf16."""
    bf16 = torch.bfloat16
    return (torch.empty(batch, heads, 1, dim, dtype=bf16),
            torch.empty(batch, kv_heads, kv_len, dim, dtype=bf16),
            torch.empty(batch, kv_heads, kv_len, dim, dtype=bf16))


def fmha_decode(torch):
    """Llama-3-8B, one sequence with a 32768-token cache."""
    flash_decode.fmha_decode(*decode_qkv(torch, 1, 32768, 32, 8, 128), sm_scale=None)


def sink_decode(torch):
    """gpt-oss-20b: 64 heads in 8 KV groups of 8, head dim 64, a 128-token window; 8 sequences with 8192-token caches."""
    bf16 = torch.bfloat16
    q = torch.empty(8, 1, 8, 8, 64, dtype=bf16)
    k = torch.empty(8, 8192, 8, 64, dtype=bf16)
    attention_sink_decode.attention_sink_decode(
        q, k, torch.empty_like(k), torch.empty(64, dtype=torch.float32), sm_scale=0.125,
        sliding_window=128, start_q=torch.empty(1, dtype=torch.int32))


def gemma_decode(torch):
    """Gemma-2-9B: 16 heads, 8 KV heads, head dim 256, a 4096-token window, logits capped at 50; 4 sequences with 8192-token caches."""
    gemma_attention_decode.gemma_fmha_decode(*decode_qkv(torch, 4, 8192, 16, 8, 256),
                                             window_size=4096, soft_cap=50.0)


CONFIGS = {
    "fmha_decode_llama3_8b_kv32768": Config(
        launch=fmha_decode, launch_kernel=flash_decode._attention_decode_kernel_grouped),
    "splitk_reduce_llama3_8b_kv32768": Config(
        launch=fmha_decode, launch_kernel=splitk_reduce._splitk_reduce_kernel),
    "sink_decode_gpt_oss_20b_b8_kv8192": Config(
        launch=sink_decode, launch_kernel=attention_sink_decode._attention_sink_decode_kernel),
    "gemma2_9b_decode_b4_kv8192": Config(
        launch=gemma_decode, launch_kernel=gemma_attention_decode._gemma_attention_decode_kernel_grouped),
}
