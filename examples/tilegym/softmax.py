"""TileGym's cuTile softmax kernels, launched by TileGym's public op as its users call it.

Each configuration calls ``tilegym.ops.cutile.softmax.softmax`` (an autograd
Function's forward) with a fake tensor of an LLM's vocabulary or hidden
size; the variant is the op's own keyword. Where TileGym tunes (the gather
kernel's worker warps), ``tune=`` takes the first of its candidates, as
TileGym does with autotuning disabled.
"""
from tilegym.ops.cutile.softmax import softmax

from tileperf_dump import Config


def op(rows, cols, dtype="bfloat16", **variant):
    def launch(torch):
        softmax(torch.empty(rows, cols, dtype=getattr(torch, dtype)), **variant)
    # The first of the candidates TileGym tunes over: what it takes with autotuning disabled.
    return Config(launch=launch, tune=lambda cfg: True)


CONFIGS = {
    # Llama-3's vocabulary (128256) would take a chunked launch; 32000 is Llama-2's.
    "rows4096_cols4096": op(4096, 4096),
    "chunked_rows1024_cols32000": op(1024, 32000, use_chunked=True),
    "multi_wave_rows4096_cols4096": op(4096, 4096, use_multi_wave=True),
    "tma_rows4096_cols4096": op(4096, 4096, use_tma=True),
}
