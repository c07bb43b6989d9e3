"""TileGym's Unsloth block-FP8 kernels (weight dequantization, activation quantization, the W8A8 block-scaled GEMM with TMA), launched by the suite's own host functions.

Shapes of Qwen3-8B-FP8 (hidden 4096, intermediate 12288, 128 x 128 weight
blocks) for 4096 tokens: its gate projection's weight and scales, and the
activations quantized in 128-wide groups.
"""
from tilegym.suites.unsloth.cutile import fp8

from tileperf_dump import Config

TOKENS, HIDDEN, INTERMEDIATE, BLOCK = 4096, 4096, 12288, 128  # Qwen3-8B-FP8


def dequant():
    def launch(torch):
        w = torch.empty(INTERMEDIATE, HIDDEN, dtype=torch.float8_e4m3fn)
        fp8.weight_dequant_block(w, torch.empty(INTERMEDIATE // BLOCK, HIDDEN // BLOCK, dtype=torch.float32))
    return Config(launch=launch)


def quant():
    def launch(torch):
        fp8.act_quant(torch.empty(TOKENS, HIDDEN, dtype=torch.bfloat16), BLOCK)
    return Config(launch=launch)


def matmul():
    def launch(torch):
        a = torch.empty(TOKENS, HIDDEN, dtype=torch.float8_e4m3fn)
        b = torch.empty(INTERMEDIATE, HIDDEN, dtype=torch.float8_e4m3fn)
        a_s = torch.empty(TOKENS, HIDDEN // BLOCK, dtype=torch.float32)
        b_s = torch.empty(INTERMEDIATE // BLOCK, HIDDEN // BLOCK, dtype=torch.float32)
        fp8.w8a8_block_fp8_matmul_cutile(a, b, a_s, b_s, [BLOCK, BLOCK], output_dtype=torch.bfloat16)
    return Config(launch=launch)


CONFIGS = {
    "weight_dequant_n12288_k4096": dequant(),
    "act_quant_t4096_h4096": quant(),
    "w8a8_tma_m4096_n12288_k4096": matmul(),
}
