"""TileGym's cuTile Mamba-2 chunked scan forward kernels, launched by TileGym's public op.

Each configuration calls ``mamba2_chunk_forward`` with fake tensors of
one Mamba2-2.7B layer (80 heads of 64, state 128, one group, chunk 256) over
a 4096-token sequence; the forward with TileGym's default chunk of 64 takes the
output kernel's swapped variant. Where TileGym tunes (every kernel here),
``tune=`` takes the first candidate, the one it takes with autotuning
disabled.
"""
from tilegym.ops.cutile import mamba2

from tg_mamba2 import FIRST, inputs
from tileperf_dump import Config


def forward(chunk_size, kernel):
    def launch(torch):
        mamba2.mamba2_chunk_forward(*inputs(torch), chunk_size=chunk_size)
    return Config(launch=launch, tune=FIRST, launch_kernel=kernel)


CONFIGS = {
    "chunk_cumsum_mamba2_2_7b_t4096": forward(256, mamba2.chunk_cumsum_kernel),
    "fwd_pass_state_mamba2_2_7b_t4096": forward(256, mamba2.fwd_pass_state_kernel),
    "compute_out_mamba2_2_7b_t4096": forward(256, mamba2.compute_out_kernel),
    "compute_out_swap_mamba2_2_7b_chunk64_t4096": forward(64, mamba2.compute_out_swap_kernel),
}
