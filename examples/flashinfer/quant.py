"""FlashInfer's cuTile quantization kernels (per-token-group FP8, grouped MXFP8, fused RoPE + FP8), launched by FlashInfer's own host code."""
from flashinfer.quantization.kernels.cutile import (mxfp8_grouped_quantize_cutile as mxfp8,
                                                    per_token_group_quant_8bit_cutile as per_token,
                                                    rope_quantize_fp8_cutile as rope)

from fi_launch import no_autotune
from tileperf_dump import Config, Problem, cdiv


def per_token_group(tokens, hidden, group, column_major=False):
    def launch(torch):
        x = torch.empty(tokens, hidden, dtype=torch.bfloat16)
        per_token.per_token_group_quant_8bit_cutile(x, group, column_major_scales=column_major)
    return Config(launch=launch)


def mxfp8_grouped(groups, rows, k, kernel):
    """The persistent kernel reads the groups' tile offsets from memory: its
    outer `while` takes each program's share of the tiles, its inner one (a
    binary search over the groups) about log2(groups) + 1 tests."""
    def launch(torch):
        x = torch.empty(groups * rows, k, dtype=torch.bfloat16)
        sizes = torch.empty(groups, 3, dtype=torch.int32)
        offsets = torch.empty(groups, dtype=torch.int32)
        out = torch.empty(groups * rows, k, dtype=torch.float8_e4m3fn)
        scales = torch.empty(groups * rows, cdiv(k, 32), dtype=torch.uint8)
        mxfp8.mxfp8_grouped_quantize_cutile(x, sizes, offsets, offsets, out, scales)
    def problem(target):
        tiles = groups * cdiv(rows, mxfp8.BLOCK_M) * cdiv(k, mxfp8.BLOCK_K)
        return Problem(trips={"while#1": cdiv(tiles, target.launch.grid[0]),
                              "while#2": (groups - 1).bit_length() + 1})
    has_loops = kernel == "_mxfp8_grouped_quant_cutile_persistent_prefix"
    return Config(launch=launch, launch_kernel=getattr(mxfp8, kernel), problem=problem if has_loops else None)


def rope_fp8(tokens, heads, rope_dim, nope_dim):
    """MLA: one key head shared by every query head."""
    def launch(torch):
        q_rope = torch.empty(tokens, heads, rope_dim, dtype=torch.bfloat16)
        k_rope = torch.empty(tokens, rope_dim, dtype=torch.bfloat16)
        q_nope = torch.empty(tokens, heads, nope_dim, dtype=torch.bfloat16)
        k_nope = torch.empty(tokens, nope_dim, dtype=torch.bfloat16)
        cos_sin = torch.empty(4096, rope_dim, dtype=torch.float32)
        pos = torch.empty(tokens, dtype=torch.int32)
        with no_autotune(rope):
            rope.rope_quantize_fp8_cutile(q_rope, k_rope, q_nope, k_nope, cos_sin, pos,
                                          is_neox=False, quantize_dtype=torch.float8_e4m3fn)
    return Config(launch=launch)


CONFIGS = {
    # DeepSeek-V3's activation quantization: 128-wide groups of a 7168 hidden state.
    "per_token_t4096_h7168_g128": per_token_group(4096, 7168, 128),
    "per_token_colmajor_t4096_h7168_g128": per_token_group(4096, 7168, 128, column_major=True),
    "mxfp8_grouped_g8_m512_k4096": mxfp8_grouped(8, 512, 4096, "_mxfp8_grouped_quant_cutile_persistent_prefix"),
    "mxfp8_prefix_g8_m512_k4096": mxfp8_grouped(8, 512, 4096, "_mxfp8_build_prefix_offsets_kernel"),
    # DeepSeek-V3's MLA: 128 query heads, 64 rotary and 512 latent dimensions.
    "rope_fp8_mla_t1024_h128": rope_fp8(1024, 128, 64, 512),
}
