"""TileGym's FlashInfer-suite cuTile attention (paged GQA decode and its split-KV reductions, MLA decode, paged and ragged prefill), launched by the suite's own host functions.

GQA: Llama-3-8B (32 query heads over 8 KV heads of 128) and, for the
per-head reduction (a head count not a multiple of 4), Qwen2.5-0.5B (14
over 2 of 64); MLA: DeepSeek-V3 (128 heads, 512 latent and 64 rotary
dimensions). The GQA decode and the prefills always tune: the gate answers
with the first of TileGym's candidates; MLA decode runs with autotuning
off (``TILEGYM_DISABLE_AUTOTUNE=1``): TileGym's own heuristic tiles.
"""
import os
from unittest import mock

from tilegym.suites.flashinfer.cutile import fmha_decode_bsr as decode, fmha_prefill_bsr as prefill

from tileperf_dump import Config, Problem, cdiv

PAGE = 16


def paged_cache(torch, batch, seq_len, kv_heads, head_dim):
    pages = batch * seq_len // PAGE
    kv = [torch.empty(pages, PAGE, kv_heads, head_dim, dtype=torch.bfloat16) for _ in range(2)]
    return kv[0], kv[1], torch.empty(batch, seq_len // PAGE, dtype=torch.int32)


def kv_trips(seq_len, key="iter_idx"):
    """The KV loop reads each sequence's length from memory: every sequence is
    seq_len long, in KV_LEN_PER_SPLIT pieces where the launch splits it."""
    def problem(target):
        c = target.launch.constants
        span = c["KV_LEN_PER_SPLIT"] if c.get("KV_LEN_PER_SPLIT", -1) > 0 else seq_len
        return Problem(trips={key: cdiv(span, c["BLOCK_N"])})
    return problem


def gqa_decode(batch, seq_len, heads, kv_heads, head_dim, kernel, split_kv):
    def launch(torch):
        q = torch.empty(batch, heads, head_dim, dtype=torch.bfloat16)
        k, v, tables = paged_cache(torch, batch, seq_len, kv_heads, head_dim)
        decode.decode_attention_kv_paged(q, k, v, torch.empty(batch, dtype=torch.int32), tables, 1.0, 1.0,
                                         max_seq_len=seq_len, force_split_kv=split_kv)
    problem = kv_trips(seq_len) if kernel is decode._decode_attention_kv_paged_kernel else None
    return Config(launch=launch, launch_kernel=kernel, tune=lambda cfg: True, problem=problem)


def mla_decode(batch, seq_len):
    def launch(torch):
        q = torch.empty(batch, 128, 512, dtype=torch.bfloat16)
        q_rope = torch.empty(batch, 128, 64, dtype=torch.bfloat16)
        pages = batch * seq_len // PAGE
        kv, k_rope = (torch.empty(pages, PAGE, d, dtype=torch.bfloat16) for d in (512, 64))
        with mock.patch.dict(os.environ, {"TILEGYM_DISABLE_AUTOTUNE": "1"}):
            decode.decode_mla_kv_paged(q, q_rope, kv, k_rope, torch.empty(batch, dtype=torch.int32),
                                       torch.empty(batch, seq_len // PAGE, dtype=torch.int32), 1.0, 1.0,
                                       max_seq_len=seq_len)
    return Config(launch=launch, launch_kernel=decode._decode_mla_kv_paged_kernel, problem=kv_trips(seq_len))


def prefill_trips(seq_len, body, two_loops):
    """The KV loops read the sequences' lengths from memory: every query and
    KV sequence is seq_len long, causal. One loop runs up to a query block's
    diagonal block (half the blocks on average); two loops split it into
    the blocks before the diagonal and the diagonal's."""
    def problem(target):
        c = target.launch.constants
        query_blocks = cdiv(seq_len, c["BLOCK_M"])
        if not two_loops:
            return Problem(trips={f"{body}.iter_idx": (query_blocks + 1) * c["BLOCK_M"] // 2 // c["BLOCK_N"]})
        return Problem(trips={f"{body}.iter_idx#1": (query_blocks - 1) * c["BLOCK_M"] // 2 // c["BLOCK_N"],
                              f"{body}.iter_idx#2": cdiv(c["BLOCK_M"], c["BLOCK_N"])})
    return problem


def paged_prefill(batch, seq_len, lpt):
    def launch(torch):
        q = torch.empty(batch * seq_len, 32, 128, dtype=torch.bfloat16)
        k, v, tables = paged_cache(torch, batch, seq_len, 8, 128)
        lens, offsets = torch.empty(batch, dtype=torch.int32), torch.empty(batch + 1, dtype=torch.int32)
        prefill.prefill_attention_kv_paged(q, k, v, lens, lens, offsets, tables, 1.0, 1.0, batch, seq_len,
                                           use_lpt_scheduler=lpt)
    kernel = prefill._prefill_attention_paged_lpt_kernel if lpt else prefill._prefill_attention_paged_kernel
    return Config(launch=launch, launch_kernel=kernel, tune=lambda cfg: True,
                  problem=prefill_trips(seq_len, "_prefill_attention_paged_body", two_loops=False))


def ragged_prefill(batch, seq_len, lpt):
    def launch(torch):
        q = torch.empty(batch * seq_len, 32, 128, dtype=torch.bfloat16)
        k, v = (torch.empty(batch * seq_len, 8, 128, dtype=torch.bfloat16) for _ in range(2))
        lens, offsets = torch.empty(batch, dtype=torch.int32), torch.empty(batch + 1, dtype=torch.int32)
        prefill.prefill_attention_kv_ragged(q, k, v, lens, lens, offsets, None, 1.0, 1.0, batch, seq_len,
                                            use_lpt_scheduler=lpt)
    kernel = prefill._prefill_attention_ragged_lpt_kernel if lpt else prefill._prefill_attention_ragged_kernel
    # TileGym tunes the two-loop and one-loop forms alike and keeps the first of equals: two loops.
    return Config(launch=launch, launch_kernel=kernel, tune=lambda cfg: True,
                  problem=prefill_trips(seq_len, "_prefill_attention_ragged_body", two_loops=True))


LLAMA = dict(heads=32, kv_heads=8, head_dim=128)  # Llama-3-8B
CONFIGS = {
    # 64 sequences of 4096 tokens decoding one token each, split over the KV length.
    "gqa_decode_split_b64_s4096": gqa_decode(64, 4096, **LLAMA, kernel=decode._decode_attention_kv_paged_kernel, split_kv=True),
    "splitk_reduce_htile_b64_s4096": gqa_decode(64, 4096, **LLAMA, kernel=decode._splitk_reduce_kernel_htile, split_kv=True),
    "splitk_reduce_qwen2_5_0_5b_b64_s4096": gqa_decode(64, 4096, 14, 2, 64, kernel=decode._splitk_reduce_kernel, split_kv=True),
    "mla_decode_b16_s4096": mla_decode(16, 4096),
    "paged_prefill_b4_s2048": paged_prefill(4, 2048, lpt=False),
    "paged_prefill_lpt_b4_s2048": paged_prefill(4, 2048, lpt=True),
    "ragged_prefill_b4_s2048": ragged_prefill(4, 2048, lpt=False),
    "ragged_prefill_lpt_b4_s2048": ragged_prefill(4, 2048, lpt=True),
}
