"""TileGym's FlashInfer-suite cuTile GEMMs (alpha/beta GEMM, masked and ragged batched GEMMs, ragged block-scaled FP8 GEMMs), launched by the suite's own host functions.

Each configuration calls one of ``tilegym.suites.flashinfer.cutile.gemm``'s
functions with TileGym's autotuning off (``TILEGYM_DISABLE_AUTOTUNE=1``, or
``use_autotune=False`` where the function takes it): its default tiles for
the architecture; the swap-AB variants through the function's own
``kernel_configs`` with an entry of its autotune space.
"""
import os
from unittest import mock

from tilegym.suites.flashinfer.cutile.gemm import (gemm_alpha_beta, masked_bmm, ragged_block_scaled_bmm as rbs,
                                                   ragged_bmm)

from tileperf_dump import Config, Problem, cdiv

no_autotune = mock.patch.dict(os.environ, {"TILEGYM_DISABLE_AUTOTUNE": "1"})


def tile_share(rows, n):
    """The persistent loop's bound comes from memory (the experts' rows):
    each program's share of the rows x n tiles of the launch's tile sizes."""
    def problem(target):
        c, grid = target.launch.constants, target.launch.grid[0]
        return Problem(trips={"current_pid": cdiv(cdiv(rows, c["BLOCK_M"]) * cdiv(n, c["BLOCK_N"]), grid)})
    return problem


def expert_share(rows, n, q):
    """The per-expert schedule walks the q experts and, in each, runs its
    `while` over the tiles it owns there (a bound from memory): on average
    its share of the rows x n tiles spread over the experts."""
    def problem(target):
        c, grid = target.launch.constants, target.launch.grid[0]
        return Problem(trips={"while": round(cdiv(rows, c["BLOCK_M"]) * cdiv(n, c["BLOCK_N"]) / grid / q)})
    return problem


def alpha_beta(m, n, k):
    def launch(torch):
        a, b = torch.empty(m, k, dtype=torch.bfloat16), torch.empty(n, k, dtype=torch.bfloat16)
        gemm_alpha_beta.gemm_alpha_beta(a, b, torch.empty(m, n, dtype=torch.bfloat16), beta=1.0, use_autotune=False)
    return Config(launch=launch)


def masked(q, m, n, k):
    def launch(torch):
        a, b = torch.empty(q, m, k, dtype=torch.bfloat16), torch.empty(q, n, k, dtype=torch.bfloat16)
        with no_autotune:
            masked_bmm.masked_bmm(a, b, torch.empty(q, dtype=torch.int32), transpose_b=True)
    return Config(launch=launch, problem=tile_share(q * m, n))


def ragged(q, total_m, n, k, **kernel_configs):
    def launch(torch):
        a, b = torch.empty(total_m, k, dtype=torch.bfloat16), torch.empty(q, n, k, dtype=torch.bfloat16)
        with no_autotune:
            ragged_bmm.ragged_bmm(a, b, torch.empty(q + 1, dtype=torch.int32), total_m // q,
                                  max_m_device=torch.empty(1, dtype=torch.int32),
                                  kernel_configs=kernel_configs or None)
    return Config(launch=launch, problem=tile_share(total_m, n))


def block_scaled(q, total_m, max_m, n, k, kernel, problem=tile_share, **kernel_configs):
    """FP8 with 128 x 128 weight blocks and 128-wide activation groups."""
    def launch(torch):
        a, b = torch.empty(total_m, k, dtype=torch.float8_e4m3fn), torch.empty(q, n, k, dtype=torch.float8_e4m3fn)
        a_s = torch.empty(total_m, k // 128, dtype=torch.float32)
        b_s = torch.empty(q, n // 128, k // 128, dtype=torch.float32)
        with no_autotune:
            rbs.ragged_block_scaled_bmm(a, b, a_s, b_s, torch.empty(q + 1, dtype=torch.int32), max_m,
                                        max_m_device=torch.empty(1, dtype=torch.int32),
                                        kernel_configs=kernel_configs or None)
    share = expert_share(total_m, n, q) if problem is expert_share else problem(q * max_m, n)
    return Config(launch=launch, launch_kernel=kernel, problem=share)


# Mixtral-8x7B's first expert GEMM in block FP8: 8 experts, hidden 4096 -> 2 x 14336, 512 tokens routed top-2.
MOE = dict(q=8, total_m=512 * 2, n=2 * 14336, k=4096)
SWAP = dict(BLOCK_M=64, BLOCK_N=128, swap_ab=True, occupancy=2)

CONFIGS = {
    # Llama-3-8B's down projection (14336 -> 4096) for 4096 tokens, accumulating into C.
    "alpha_beta_m4096_n4096_k14336": alpha_beta(4096, 4096, 14336),
    # Mixtral-8x7B's experts (4096 -> 14336), 512 rows each.
    "masked_q8_m512_n14336_k4096": masked(8, 512, 14336, 4096),
    "ragged_q8_m4096_n14336_k4096": ragged(8, 4096, 14336, 4096),
    # Decode-sized experts (64 rows each) with A and B swapped.
    "ragged_swap_ab_q8_m512_n14336_k4096": ragged(8, 512, 14336, 4096, **SWAP),
    # Balanced routing (every expert at the mean) takes the uniform schedule, an imbalanced one the per-expert one.
    "block_scaled_uniform_q8_m1024_n28672_k4096": block_scaled(**MOE, max_m=128, kernel=rbs._ragged_block_scaled_bmm_uniform_kernel),
    "block_scaled_q8_m1024_max256_n28672_k4096": block_scaled(**MOE, max_m=256, kernel=rbs._ragged_block_scaled_bmm_kernel,
                                                    problem=expert_share),
    "block_scaled_swap_ab_q8_m1024_n28672_k4096": block_scaled(**MOE, max_m=128, kernel=rbs._ragged_block_scaled_bmm_swap_ab_kernel,
                                                     BLOCK_M=32, BLOCK_N=256, GROUP_SIZE_M=4, swap_ab=True, occupancy=2),
}
