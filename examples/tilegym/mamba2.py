"""TileGym's cuTile Mamba-2 chunked scan kernels (forward and backward), launched by TileGym's public ops.

Each configuration calls ``mamba2_chunk_forward`` or ``mamba2_chunk_backward``
(a host function, no autograd) with stand-in tensors of one Mamba2-2.7B
layer (80 heads of 64, state 128, one group, chunk 256) over a 4096-token
sequence; the forward with TileGym's default chunk of 64 takes the
output kernel's swapped variant. Where TileGym tunes (every kernel here),
``tune=`` takes the first candidate, the one it takes with autotuning
disabled.
"""
from tilegym.ops.cutile import mamba2

from tileperf_dump import Config

HEADS, HEAD_DIM, STATE, GROUPS = 80, 64, 128, 1
FIRST = lambda cfg: True  # noqa: E731


def inputs(torch, batch=1, tokens=4096):
    """x, a, b, c, d, dt, init_state of one Mamba2-2.7B layer."""
    bf16, f32 = torch.bfloat16, torch.float32
    bc = (batch, tokens, GROUPS, STATE)
    return (torch.empty(batch, tokens, HEADS, HEAD_DIM, dtype=bf16), torch.empty(HEADS, dtype=f32),
            torch.empty(*bc, dtype=bf16), torch.empty(*bc, dtype=bf16), torch.empty(HEADS, dtype=f32),
            torch.empty(batch, tokens, HEADS, dtype=bf16),
            torch.empty(batch, HEADS, HEAD_DIM, STATE, dtype=f32))


def forward(chunk_size, kernel):
    def launch(torch):
        mamba2.mamba2_chunk_forward(*inputs(torch), chunk_size=chunk_size)
    return Config(launch=launch, tune=FIRST, launch_kernel=kernel)


def backward(kernel):
    def launch(torch):
        x, a, b, c, d, dt, init_state = inputs(torch)
        mamba2.mamba2_chunk_backward(x, a, b, c, d, dt, init_state, torch.empty_like(x),
                                     torch.empty_like(init_state), chunk_size=256)
    return Config(launch=launch, tune=FIRST, launch_kernel=kernel)


CONFIGS = {
    "chunk_cumsum_mamba2_2_7b_t4096": forward(256, mamba2.chunk_cumsum_kernel),
    "fwd_pass_state_mamba2_2_7b_t4096": forward(256, mamba2.fwd_pass_state_kernel),
    "compute_out_mamba2_2_7b_t4096": forward(256, mamba2.compute_out_kernel),
    "compute_out_swap_mamba2_2_7b_chunk64_t4096": forward(64, mamba2.compute_out_swap_kernel),
    "bwd_pass_state_mamba2_2_7b_t4096": backward(mamba2.bwd_pass_state_kernel),
    "compute_dd_dcb_dx_mamba2_2_7b_t4096": backward(mamba2.compute_dd_dcb_dx_kernel),
    "compute_da_db_dc_ddt_mamba2_2_7b_t4096": backward(mamba2.compute_da_db_dc_ddt_kernel),
}
