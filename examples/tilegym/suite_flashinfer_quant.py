"""TileGym's FlashInfer-suite cuTile quantization kernels (per-token-group FP8 with row- and column-major scales, fused RoPE + FP8), launched by the suite's own host functions."""
import os
from unittest import mock

from tilegym.suites.flashinfer.cutile import per_token_group_quant_8bit as per_token, rope_quantize_fp8 as rope

from tileperf_dump import Config


def per_token_group(tokens, hidden, group, column_major=False):
    def launch(torch):
        per_token.per_token_group_quant_8bit(torch.empty(tokens, hidden, dtype=torch.bfloat16), group,
                                             column_major_scales=column_major)
    return Config(launch=launch)


def rope_fp8(tokens, heads, rope_dim, nope_dim):
    """MLA: one key head shared by every query head; autotuning off
    (TILEGYM_DISABLE_AUTOTUNE=1): TileGym's default tokens per block."""
    def launch(torch):
        q_rope = torch.empty(tokens, heads, rope_dim, dtype=torch.bfloat16)
        k_rope = torch.empty(tokens, rope_dim, dtype=torch.bfloat16)
        q_nope = torch.empty(tokens, heads, nope_dim, dtype=torch.bfloat16)
        k_nope = torch.empty(tokens, nope_dim, dtype=torch.bfloat16)
        cos_sin = torch.empty(4096, rope_dim, dtype=torch.float32)
        with mock.patch.dict(os.environ, {"TILEGYM_DISABLE_AUTOTUNE": "1"}):
            rope.rope_quantize_fp8(q_rope, k_rope, q_nope, k_nope, cos_sin, torch.empty(tokens, dtype=torch.int32),
                                   is_neox=False, quantize_dtype=torch.float8_e4m3fn)
    return Config(launch=launch)


CONFIGS = {
    # DeepSeek-V3's activation quantization: 128-wide groups of a 7168 hidden state.
    "per_token_t4096_h7168_g128": per_token_group(4096, 7168, 128),
    "per_token_colmajor_t4096_h7168_g128": per_token_group(4096, 7168, 128, column_major=True),
    # DeepSeek-V3's MLA: 128 query heads, 64 rotary and 512 latent dimensions.
    "rope_fp8_mla_t1024_h128": rope_fp8(1024, 128, 64, 512),
}
