"""FlashInfer's cuTile masked and ragged batched GEMMs (bf16, fp8 block-scaled), launched by FlashInfer's own host code.

Each configuration calls the library's launcher with stand-in tensors (the
experts of a mixture of experts, each with its own rows), FlashInfer's
default tile configuration for the architecture, and autotuning off, as
FLASHINFER_CUTILE_AUTOTUNE_DISABLED=1 sets it; the gate takes the kernel,
its constants and the grid from the ct.launch it makes.
"""
import contextlib

from flashinfer.gemm.kernels.cutile import (masked_bmm_cutile, masked_scaled_bmm_cutile,
                                            ragged_bmm_cutile)

from fi_launch import no_autotune, tile_share
from tileperf_dump import Config


def masked(q, m, n, k):
    def launch(torch):
        a = torch.empty(q, m, k, dtype=torch.bfloat16)
        b = torch.empty(q, n, k, dtype=torch.bfloat16)
        masked_m = torch.empty(q, dtype=torch.int32)
        with no_autotune(masked_bmm_cutile):
            masked_bmm_cutile.masked_bmm(a, b, masked_m, transpose_b=True)
    return Config(launch=launch)


def masked_m_max(q):
    """The kernel that finds the largest of the experts' row counts on the
    device, launched by the same launcher first."""
    def launch(torch):
        masked_scaled_bmm_cutile._masked_m_max_device_cutile(torch.empty(q, dtype=torch.int32))
    return Config(launch=launch)


def ragged(q, total_m, n, k, tune=None):
    """Autotuning off, FlashInfer's default tiles; with `tune`, the entry of
    its autotune space it accepts (how the swap-AB kernel is launched)."""
    def launch(torch):
        a = torch.empty(total_m, k, dtype=torch.bfloat16)
        b = torch.empty(q, n, k, dtype=torch.bfloat16)
        m_indptr = torch.empty(q + 1, dtype=torch.int32)
        with no_autotune(ragged_bmm_cutile) if tune is None else contextlib.nullcontext():
            ragged_bmm_cutile.ragged_bmm(a, b, m_indptr, total_m // q, transpose_b=True,
                                         max_m_device=torch.empty(1, dtype=torch.int32))
    return Config(launch=launch, tune=tune, problem=tile_share(total_m, n))


CONFIGS = {
    # 8 experts of a Mixtral-like MoE layer, 512 tokens each, 4096 -> 14336.
    "masked_q8_m512_n14336_k4096": masked(8, 512, 14336, 4096),
    "masked_m_max_q256": masked_m_max(256),
    "ragged_q8_m4096_n4096_k14336": ragged(8, 4096, 4096, 14336),
    # Decode-sized experts (64 rows each): FlashInfer swaps A and B.
    "ragged_swap_ab_q16_m1024_n4096_k7168": ragged(16, 1024, 4096, 7168, tune=lambda cfg: (cfg.BLOCK_M, cfg.BLOCK_N, cfg.occupancy) == (64, 128, 2)),
}
