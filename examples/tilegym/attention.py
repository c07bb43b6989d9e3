"""TileGym's cuTile prefill attention kernels (FMHA forward and backward, variants, varlen, sinks, Gemma), launched by TileGym's public ops.

Each configuration calls the op as a user does, with fake tensors of a
real model's prefill (Llama-3-8B: 32 heads, 8 KV heads, head dim 128;
gpt-oss-20b for attention sinks; Gemma-2-9B for Gemma's attention). Where
TileGym tunes, ``tune=`` takes the first candidate, the one it takes with
autotuning disabled. The backward kernels are launched by TileGym's host
function ``_fmha_backward``, which the autograd Function's backward calls.
"""
from tilegym.ops.cutile import (attention, attention_sink, attention_variant, attention_varlen,
                                gemma_attention)

from tileperf_dump import Config, Problem, cdiv

FIRST = lambda cfg: True  # noqa: E731  (the first candidate of each search)
B, S = 2, 4096            # a batch of two 4096-token prompts


def llama3(torch, batch=B, seq=S, heads=32, kv_heads=8, dim=128):
    """q, k, v of Llama-3-8B ([batch, heads, seq, dim], bf16)."""
    bf16 = torch.bfloat16
    return (torch.empty(batch, heads, seq, dim, dtype=bf16),
            torch.empty(batch, kv_heads, seq, dim, dtype=bf16),
            torch.empty(batch, kv_heads, seq, dim, dtype=bf16))


def fmha(torch):
    attention.tile_fmha(*llama3(torch), is_causal=True)


def fmha_train(torch):
    attention.tile_fmha_with_backward(*llama3(torch), is_causal=True)


def fmha_backward(torch):
    q, k, v = llama3(torch)
    o, do = torch.empty_like(q), torch.empty_like(q)
    lse = torch.empty(B, 32, S, dtype=torch.float32)
    attention._fmha_backward(q, k, v, o, do, lse, 128 ** -0.5, is_causal=True)


def variant(layout):
    def launch(torch):
        q, k, v = llama3(torch)
        if layout == "nsbd":  # [heads, seq, batch, dim]
            q, k, v = (t.permute(1, 2, 0, 3).contiguous() for t in (q, k, v))
        attention_variant.fmha_variant_cutile(q, k, v, is_causal=True, layout=layout)
    return Config(launch=launch, tune=FIRST)


def kv_tiles(window=0):
    """The KV loop's bound comes from memory (each sequence's length; the
    first query's position): every sequence is S tokens long and starts at 0.
    Causal, so a query block visits the KV tiles up to its diagonal (after
    the window's start, with a sliding window); on average over the query
    blocks."""
    def problem(target):
        m, n = target.launch.constants["TILE_M"], target.launch.constants["TILE_N"]
        blocks = cdiv(S, m)
        tiles = [cdiv(min((b + 1) * m, S), n) - (max(0, b * m - window) // n if window else 0)
                 for b in range(blocks)]
        return Problem(trips={"j": round(sum(tiles) / blocks)})
    return problem


def varlen(torch):
    q, k, v = llama3(torch)
    lens = torch.empty(B, dtype=torch.int32)
    attention_varlen.tile_fmha_varlen(q, k, v, is_causal=True, q_lens=lens, kv_lens=lens)


def sink(torch):
    """gpt-oss-20b: 64 heads in 8 KV groups of 8, head dim 64, a 128-token window."""
    bf16 = torch.bfloat16
    q = torch.empty(1, S, 8, 8, 64, dtype=bf16)
    k = torch.empty(1, S, 8, 64, dtype=bf16)
    attention_sink.attention_sink(q, k, torch.empty_like(k), torch.empty(64, dtype=torch.float32),
                                  sm_scale=0.125, sliding_window=128, start_q=0)


def gemma(torch):
    """Gemma-2-9B: 16 heads, 8 KV heads, head dim 256, a 4096-token window, logits capped at 50."""
    q, k, v = llama3(torch, heads=16, kv_heads=8, dim=256)
    gemma_attention.gemma_attention_cutile(q, k, v, window_size=4096, soft_cap=50.0)


CONFIGS = {
    "fmha_llama3_8b_s4096": Config(launch=fmha, tune=FIRST),
    "fmha_fwd_lse_llama3_8b_s4096": Config(launch=fmha_train),
    "fmha_bwd_preprocess_llama3_8b_s4096": Config(
        launch=fmha_backward, tune=FIRST, launch_kernel=attention._fmha_bwd_preprocess_kernel),
    "fmha_bwd_dkdv_llama3_8b_s4096": Config(
        launch=fmha_backward, tune=FIRST, launch_kernel=attention._fmha_bwd_dkdv_kernel),
    "fmha_bwd_dq_llama3_8b_s4096": Config(
        launch=fmha_backward, tune=FIRST, launch_kernel=attention._fmha_bwd_dq_kernel),
    "variant_bnsd_llama3_8b_s4096": variant("bnsd"),
    "variant_nsbd_llama3_8b_s4096": variant("nsbd"),
    "varlen_llama3_8b_s4096": Config(launch=varlen, tune=FIRST, problem=kv_tiles()),
    "sink_gpt_oss_20b_s4096": Config(launch=sink, tune=FIRST, problem=kv_tiles(window=128)),
    "gemma2_9b_s4096": Config(launch=gemma),
}
