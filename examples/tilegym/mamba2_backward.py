"""TileGym's cuTile Mamba-2 chunked scan backward kernels, launched by TileGym's public op.

Each configuration calls ``mamba2_chunk_backward`` (a host function, no
autograd) with fake tensors of one Mamba2-2.7B layer (80 heads of 64,
state 128, one group, chunk 256) over a 4096-token sequence. Every kernel
here tunes: ``tune=`` takes the first candidate, the one TileGym takes with
autotuning disabled.
"""
from tilegym.ops.cutile import mamba2

from tg_mamba2 import FIRST, inputs
from tileperf_dump import Config


def backward(kernel):
    def launch(torch):
        x, a, b, c, d, dt, init_state = inputs(torch)
        mamba2.mamba2_chunk_backward(x, a, b, c, d, dt, init_state, torch.empty_like(x),
                                     torch.empty_like(init_state), chunk_size=256)
    return Config(launch=launch, tune=FIRST, launch_kernel=kernel)


CONFIGS = {
    "bwd_pass_state_mamba2_2_7b_t4096": backward(mamba2.bwd_pass_state_kernel),
    "compute_dd_dcb_dx_mamba2_2_7b_t4096": backward(mamba2.compute_dd_dcb_dx_kernel),
    "compute_da_db_dc_ddt_mamba2_2_7b_t4096": backward(mamba2.compute_da_db_dc_ddt_kernel),
}
