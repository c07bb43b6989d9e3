"""FlashInfer's cuTile BF16 GEMM and batched GEMM, launched by FlashInfer's own host code.

Each configuration calls the library's launcher with fake tensors of a
typical LLM shape and one entry of FlashInfer's autotune space for the
architecture (its SM count sizes the persistent grid); the gate takes the
kernel, its constants and the grid from the ct.launch it makes.
"""
from flashinfer.gemm.kernels.cutile import bmm_bf16_cutile, gemm_alpha_beta_cutile, mm_bf16_cutile

from tileperf_dump import Config


def mm(m, n, k, block_m, block_n, occupancy=1):
    """mm_bf16 through FlashInfer's launcher, without autotuning, with one
    tile shape of its autotune space."""
    def launch(torch):
        a = torch.empty(m, k, dtype=torch.bfloat16)
        b = torch.empty(n, k, dtype=torch.bfloat16)
        c = torch.empty(m, n, dtype=torch.bfloat16)
        mm_bf16_cutile._gemm_alpha_beta_cutile(
            a, b, c, use_autotune=False,
            kernel_configs=dict(BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=64, occupancy=occupancy,
                                num_ctas=1, EPILOGUE_SUBTILE=0))
    return Config(launch=launch)


def bmm(batch, m, n, k, block_m, block_n, occupancy=1):
    """bmm_bf16 through FlashInfer's launcher, which always tunes: the gate
    answers its search with the entry of this tile shape (of the space for
    the architecture)."""
    def launch(torch):
        a = torch.empty(batch, m, k, dtype=torch.bfloat16)
        b = torch.empty(batch, n, k, dtype=torch.bfloat16).transpose(-2, -1)
        bmm_bf16_cutile.bmm_bf16_cutile(a, b, torch.empty(batch, m, n, dtype=torch.bfloat16),
                                        tune_cache={})

    def tune(cfg):
        return (cfg.BLOCK_M, cfg.BLOCK_N, cfg.occupancy) == (block_m, block_n, occupancy)
    return Config(launch=launch, tune=tune)


def alpha_beta(m, n, k, beta):
    """gemm_alpha_beta (C = alpha A B^T + beta C) through FlashInfer's
    launcher, without autotuning: its default tiles for the architecture."""
    def launch(torch):
        a = torch.empty(m, k, dtype=torch.bfloat16)
        b = torch.empty(n, k, dtype=torch.bfloat16)
        c = torch.empty(m, n, dtype=torch.bfloat16)
        gemm_alpha_beta_cutile.gemm_alpha_beta(a, b, c, alpha=0.5, beta=beta, use_autotune=False)
    return Config(launch=launch)


CONFIGS = {
    # A Llama-3-8B projection (4096 x 14336) for a batch of 4096 tokens.
    "mm_m4096_n14336_k4096_128x128": mm(4096, 14336, 4096, 128, 128),
    "mm_m128_n4096_k4096_64x64": mm(128, 4096, 4096, 64, 64, occupancy=2),
    # Batched: 8 heads' worth of 1024 x 1024 x 128 products, 128 x 128 tiles.
    "bmm_b8_m1024_n1024_k128": bmm(8, 1024, 1024, 128, 128, 128),
    # Llama-3-8B's down projection (14336 -> 4096) for 2048 tokens, accumulating into C.
    "alpha_beta_m2048_n4096_k14336": alpha_beta(2048, 4096, 14336, 1.0),
}
