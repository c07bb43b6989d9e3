"""FlashInfer's cuTile attention: paged GQA and MLA decode (with the split-KV reduction), paged and ragged prefill, launched by FlashInfer's own host code.

FlashInfer tunes its attention launches with cuTile's exhaustive_search; the
gate answers the search with the configuration named here (an entry of
FlashInfer's own candidates for the sizes).
"""
from flashinfer.attention.kernels.cutile import fmha_decode_bsr_cutile as decode
from flashinfer.attention.kernels.cutile import fmha_prefill_bsr_cutile as prefill

from tileperf_dump import Config, Problem, cdiv

# Llama-3-8B: 32 query heads over 8 KV heads of 128, a paged KV cache of 16-token pages.
HEADS, KV_HEADS, HEAD_DIM, PAGE = 32, 8, 128, 16


def cache(torch, batch, seq_len):
    pages = batch * seq_len // PAGE
    k = torch.empty(pages, PAGE, KV_HEADS, HEAD_DIM, dtype=torch.bfloat16)
    v = torch.empty(pages, PAGE, KV_HEADS, HEAD_DIM, dtype=torch.bfloat16)
    tables = torch.empty(batch, seq_len // PAGE, dtype=torch.int32)
    return k, v, tables


def decode_trips(seq_len):
    """The KV loop reads each sequence's length from memory: every sequence
    of the batch is seq_len long, split in KV_LEN_PER_SPLIT pieces when the
    launch splits it."""
    def problem(target):
        c = target.launch.constants
        span = c["KV_LEN_PER_SPLIT"] if c["KV_LEN_PER_SPLIT"] > 0 else seq_len
        return Problem(trips={"iter_idx": cdiv(span, c["BLOCK_N"])})
    return problem


def prefill_trips(seq_len, body="_prefill_attention_paged_body"):
    """The KV loops read the sequences' lengths from memory: every query and
    KV sequence is seq_len long. Causal: the blocks before a query block's
    diagonal (on average over the query blocks, half of them) and the
    diagonal block."""
    body += ".iter_idx"

    def problem(target):
        c = target.launch.constants
        if not c["IS_CAUSAL"]:
            return Problem(trips={f"{body}#1": cdiv(seq_len, c["BLOCK_N"])})
        query_blocks = cdiv(seq_len, c["BLOCK_M"])
        return Problem(trips={f"{body}#1": (query_blocks - 1) * c["BLOCK_M"] // 2 // c["BLOCK_N"],
                              f"{body}#2": cdiv(c["BLOCK_M"], c["BLOCK_N"])})
    return problem


def gqa_decode(batch, seq_len, kernel, split_kv):
    def launch(torch):
        q = torch.empty(batch, HEADS, HEAD_DIM, dtype=torch.bfloat16)
        k, v, tables = cache(torch, batch, seq_len)
        lens = torch.empty(batch, dtype=torch.int32)
        decode.fmha_decode_bsr_cutile(q, k, v, lens, tables, 1.0, 1.0, max_seq_len=seq_len,
                                      force_split_kv=split_kv)
    problem = decode_trips(seq_len) if kernel is decode._decode_attention_kv_paged_kernel else None
    return Config(launch=launch, launch_kernel=kernel, tune=lambda cfg: True, problem=problem)


def paged_prefill(batch, seq_len, kernel, lpt):
    def launch(torch):
        q = torch.empty(batch * seq_len, HEADS, HEAD_DIM, dtype=torch.bfloat16)
        k, v, tables = cache(torch, batch, seq_len)
        lens = torch.empty(batch, dtype=torch.int32)
        offsets = torch.empty(batch + 1, dtype=torch.int32)
        prefill.prefill_attention_kv_paged_cutile(q, k, v, lens, lens, offsets, tables, 1.0, 1.0,
                                                  batch, seq_len, use_lpt_scheduler=lpt)
    return Config(launch=launch, launch_kernel=kernel, tune=lambda cfg: True, problem=prefill_trips(seq_len))


def ragged_prefill(batch, seq_len, kernel, lpt):
    """The KV cache of each sequence contiguous (ragged), no page table."""
    def launch(torch):
        q = torch.empty(batch * seq_len, HEADS, HEAD_DIM, dtype=torch.bfloat16)
        k = torch.empty(batch * seq_len, KV_HEADS, HEAD_DIM, dtype=torch.bfloat16)
        v = torch.empty(batch * seq_len, KV_HEADS, HEAD_DIM, dtype=torch.bfloat16)
        lens = torch.empty(batch, dtype=torch.int32)
        offsets = torch.empty(batch + 1, dtype=torch.int32)
        prefill.prefill_attention_kv_ragged_cutile(q, k, v, lens, lens, offsets, None, 1.0, 1.0,
                                                   batch, seq_len, use_lpt_scheduler=lpt)
    return Config(launch=launch, launch_kernel=kernel, tune=lambda cfg: True,
                  problem=prefill_trips(seq_len, "_prefill_attention_ragged_body"))


# DeepSeek-V3's MLA: its query heads (128, or 16 a GPU over 8 in tensor
# parallel) over one latent KV head (a 512-wide compressed cache and a
# 64-wide rotary part), 64-token pages.
MLA_RANK, MLA_ROPE, MLA_PAGE = 512, 64, 64


def mla_decode(batch, seq_len, heads, split_kv):
    """Under 64 heads, FlashInfer swaps the QK operands on sm_100 (TRANS_QK)."""
    def launch(torch):
        pages = batch * seq_len // MLA_PAGE
        q = torch.empty(batch, heads, MLA_RANK, dtype=torch.bfloat16)
        q_rope = torch.empty(batch, heads, MLA_ROPE, dtype=torch.bfloat16)
        kv = torch.empty(pages, MLA_PAGE, MLA_RANK, dtype=torch.bfloat16)
        k_rope = torch.empty(pages, MLA_PAGE, MLA_ROPE, dtype=torch.bfloat16)
        tables = torch.empty(batch, seq_len // MLA_PAGE, dtype=torch.int32)
        lens = torch.empty(batch, dtype=torch.int32)
        decode.decode_mla_kv_paged_cutile(q, q_rope, kv, k_rope, lens, tables, 1.0, 1.0,
                                          max_seq_len=seq_len, force_split_kv=split_kv)
    return Config(launch=launch, launch_kernel=decode._decode_mla_kv_paged_kernel,
                  tune=lambda cfg: True, problem=decode_trips(seq_len))


CONFIGS = {
    # 64 sequences of 4096 tokens decoding one token each: split over the KV length.
    "gqa_decode_split_b64_s4096": gqa_decode(64, 4096, decode._decode_attention_kv_paged_kernel, True),
    "splitk_reduce_b64_s4096": gqa_decode(64, 4096, decode._splitk_reduce_kernel, True),
    "gqa_decode_b8_s1024": gqa_decode(8, 1024, decode._decode_attention_kv_paged_kernel, False),
    "paged_prefill_b4_s2048": paged_prefill(4, 2048, prefill._prefill_attention_paged_kernel, False),
    "paged_prefill_lpt_b4_s2048": paged_prefill(4, 2048, prefill._prefill_attention_paged_lpt_kernel, True),
    "ragged_prefill_b4_s2048": ragged_prefill(4, 2048, prefill._prefill_attention_ragged_kernel, False),
    "ragged_prefill_lpt_b4_s2048": ragged_prefill(4, 2048, prefill._prefill_attention_ragged_lpt_kernel, True),
    "mla_decode_split_h16_b16_s4096": mla_decode(16, 4096, 16, True),
    "mla_decode_h128_b64_s2048": mla_decode(64, 2048, 128, False),
}
