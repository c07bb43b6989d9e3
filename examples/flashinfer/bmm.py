"""FlashInfer's cuTile masked and ragged batched GEMMs (bf16, fp8 block-scaled), launched by FlashInfer's own host code.

Each configuration calls the library's launcher with fake tensors (the
experts of a mixture of experts, each with its own rows), FlashInfer's
default tile configuration for the architecture, and autotuning off, as
FLASHINFER_CUTILE_AUTOTUNE_DISABLED=1 sets it; the gate takes the kernel,
its constants and the grid from the ct.launch it makes.
"""
import contextlib

from flashinfer.gemm.kernels.cutile import (masked_bmm_cutile, masked_scaled_bmm_cutile,
                                            ragged_block_scaled_bmm_cutile, ragged_bmm_cutile)

from fi_launch import no_autotune, tile_share
from tileperf_dump import Config, Problem, cdiv


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


def expert_share(rows, n):
    """A persistent kernel that walks the experts in turn, each program
    taking its share of each expert's tiles (a `while` loop over tiles whose
    count comes from the expert's rows in memory): every expert has `rows`."""
    def problem(target):
        c, grid = target.launch.constants, target.launch.grid[0]
        return Problem(trips={"while": cdiv(cdiv(rows, c["BLOCK_M"]) * cdiv(n, c["BLOCK_N"]), grid)})
    return problem


def ragged_fp8(q, total_m, n, k):
    """FP8 with float32 scales per 128 x 128 block of B and per row and
    128 columns of A (DeepSeek-V3's), FlashInfer's default tiles."""
    def launch(torch):
        a = torch.empty(total_m, k, dtype=torch.float8_e4m3fn)
        b = torch.empty(q, n, k, dtype=torch.float8_e4m3fn)
        a_scale = torch.empty(total_m, k // 128, dtype=torch.float32)
        b_scale = torch.empty(q, n // 128, k // 128, dtype=torch.float32)
        m_indptr = torch.empty(q + 1, dtype=torch.int32)
        ragged_block_scaled_bmm_cutile.ragged_block_scaled_bmm(
            a, b, a_scale, b_scale, m_indptr, total_m // q,
            max_m_device=torch.empty(1, dtype=torch.int32))
    return Config(launch=launch, problem=expert_share(total_m // q, n))


CONFIGS = {
    # 8 experts of a Mixtral-like MoE layer, 512 tokens each, 4096 -> 14336.
    "masked_q8_m512_n14336_k4096": masked(8, 512, 14336, 4096),
    "masked_m_max_q256": masked_m_max(256),
    "ragged_q8_m4096_n4096_k14336": ragged(8, 4096, 4096, 14336),
    # Decode-sized experts (64 rows each): FlashInfer swaps A and B.
    # 8 of DeepSeek-V3's experts, 2048 tokens each, the gate and up projections (7168 -> 2 x 2048).
    "ragged_fp8_q8_m16384_n4096_k7168": ragged_fp8(8, 16384, 4096, 7168),
    "ragged_swap_ab_q16_m1024_n4096_k7168": ragged(16, 1024, 4096, 7168, tune=lambda cfg: (cfg.BLOCK_M, cfg.BLOCK_N, cfg.occupancy) == (64, 128, 2)),
}
