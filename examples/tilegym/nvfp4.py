"""TileGym's experimental cuTile NVFP4 quantization kernel, launched by TileGym's public op ``nvfp4_quantize``.

A Llama-3-8B MLP activation (4096 tokens x 14336, bf16) quantized to packed
FP4 with swizzled FP8 block scales, at the op's default occupancy (6).
"""
from tilegym.ops.cutile.experimental.nvfp4_quantize import tile_nvfp4_quantize

from tileperf_dump import Config


def nvfp4(rows, cols):
    def launch(torch):
        tile_nvfp4_quantize(torch.empty(rows, cols, dtype=torch.bfloat16))
    return Config(launch=launch)


CONFIGS = {
    "nvfp4_quantize_4096x14336": nvfp4(4096, 14336),
}
