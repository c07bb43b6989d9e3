"""TileGym's cuTile block-scaled FP8 (W8A8) GEMM, launched by TileGym's public op ``w8a8_block_fp8_matmul``.

DeepSeek-V3's 128 x 128 block quantization: FP8 activations with a scale per
128 columns of each row and FP8 weights with a scale per 128 x 128 block, a
decode batch of 64 tokens against its MLP's gate/up projection (7168 ->
18432), bf16 out. The op always tunes and has no untuned default: ``tune=``
takes the first entry of its search space (the smallest row tile, A and B
swapped, no TMA).
"""
from tilegym.ops.cutile.fp8_quantization_matmul import w8a8_block_fp8_matmul

from tileperf_dump import Config, cdiv


def w8a8(m, n, k, block=128):
    def launch(torch):
        w8a8_block_fp8_matmul(torch.empty(m, k, dtype=torch.float8_e4m3fn),
                              torch.empty(n, k, dtype=torch.float8_e4m3fn),
                              torch.empty(m, cdiv(k, block), dtype=torch.float32),
                              torch.empty(cdiv(n, block), cdiv(k, block), dtype=torch.float32),
                              [block, block], output_dtype=torch.bfloat16)
    return Config(launch=launch, tune=lambda cfg: True)


CONFIGS = {
    "w8a8_block_fp8_m64_n18432_k7168": w8a8(64, 18432, 7168),
}
