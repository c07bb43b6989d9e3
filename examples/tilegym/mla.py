"""TileGym's cuTile multi-head latent attention kernels (DeepSeek-V3 MLA prefill, absorbed decode, split-KV decode), launched by TileGym's public ops.

Each configuration calls the op as a user does with fake tensors of
DeepSeek-V3's attention (128 heads; prefill: no-RoPE query/key and value dim
128, RoPE dim 64; decode with absorbed weights: kv_lora_rank 512, RoPE dim
64). Where TileGym tunes (the prefill), ``tune=`` takes the first candidate,
the one it takes with autotuning disabled; the split-KV decode sizes its
splits from the architecture's SM count (its split-K reduction is gated with
the FMHA decode, attention_decode.py).
"""
from tilegym.ops.cutile import mla, mla_decoding, mla_decoding_split_kv

from tileperf_dump import Config


def prefill(torch, batch=1, seq=4096, heads=128):
    bf16 = torch.bfloat16
    q = torch.empty(batch, heads, seq, 128, dtype=bf16)
    qpe = torch.empty(batch, heads, seq, 64, dtype=bf16)
    kpe = torch.empty(batch, 1, seq, 64, dtype=bf16)  # one RoPE key shared by the heads
    mla.tile_mla(q, torch.empty_like(q), torch.empty_like(q), qpe, kpe, is_causal=True, scaling=None)


def absorbed(torch, batch=8, kv_len=8192, heads=128):
    """q, qpe, the latent cache and its RoPE keys of one decode step."""
    bf16 = torch.bfloat16
    return (torch.empty(batch, heads, 512, dtype=bf16), torch.empty(batch, heads, 64, dtype=bf16),
            torch.empty(batch, kv_len, 512, dtype=bf16), torch.empty(batch, kv_len, 64, dtype=bf16))


def decode(torch):
    mla_decoding.mla_decoding(*absorbed(torch), sm_scale=None)


def decode_split_kv(torch):
    mla_decoding_split_kv.mla_decoding_split_kv(*absorbed(torch))


CONFIGS = {
    "prefill_deepseek_v3_s4096": Config(launch=prefill, tune=lambda cfg: True),
    "decode_deepseek_v3_b8_kv8192": Config(launch=decode),
    "decode_split_kv_deepseek_v3_b8_kv8192": Config(
        launch=decode_split_kv, launch_kernel=mla_decoding_split_kv._naive_absorb_mla_transpose_kernel),
}
