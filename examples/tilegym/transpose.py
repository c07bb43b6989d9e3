"""TileGym's cuTile 2-D transpose kernel, launched by TileGym's public op ``transpose``.

A Llama-3-8B MLP weight (14336 x 4096, bf16: the op takes 128 x 128 tiles).
"""
from tilegym.ops.cutile.transpose import transpose

from tileperf_dump import Config


def op(m, n):
    def launch(torch):
        transpose(torch.empty(m, n, dtype=torch.bfloat16))
    return Config(launch=launch)


CONFIGS = {
    "transpose_14336x4096": op(14336, 4096),
}
