"""FlashInfer's cuTile FP8 GEMMs with per-block scales (W8A8, dense and grouped), launched by FlashInfer's own host code.

The dense launcher always tunes: the gate answers its search with the
configuration named here (of FlashInfer's own search space); the grouped one
takes FlashInfer's default for the sizes.
"""
from flashinfer.gemm.kernels.cutile import gemm_fp8_nt_groupwise_cutile as fp8

from fi_launch import tile_share
from tileperf_dump import Config, cdiv


def dense(m, n, k, block_m, occupancy, swap_ab):
    def launch(torch):
        a = torch.empty(m, k, dtype=torch.float8_e4m3fn)
        b = torch.empty(n, k, dtype=torch.float8_e4m3fn)
        a_scale = torch.empty(m, cdiv(k, 128), dtype=torch.float32)
        b_scale = torch.empty(cdiv(n, 128), cdiv(k, 128), dtype=torch.float32)
        fp8.gemm_fp8_nt_groupwise_cutile(a, b, a_scale, b_scale,
                                         torch.empty(m, n, dtype=torch.bfloat16))

    def tune(cfg):
        return (cfg.BLOCK_SIZE_M, cfg.occupancy, cfg.swap_ab) == (block_m, occupancy, swap_ab)
    return Config(launch=launch, tune=tune)


def gather(m, n, k, block_m, occupancy):
    """The gather/scatter twin of the dense kernel (the same math, loads and
    stores by index instead of TMA), which only FlashInfer's tuning launcher
    `_w8a8_autotune_and_launch(use_tma=False)` launches: the public op
    always takes the TMA kernel."""
    def launch(torch):
        a = torch.empty(m, k, dtype=torch.float8_e4m3fn)
        b = torch.empty(n, k, dtype=torch.float8_e4m3fn)
        a_scale = torch.empty(m, cdiv(k, 128), dtype=torch.float32)
        b_scale = torch.empty(cdiv(n, 128), cdiv(k, 128), dtype=torch.float32)
        out = torch.empty(m, n, dtype=torch.bfloat16)
        fp8._w8a8_autotune_and_launch(torch.cuda.current_stream(), a, b, out, a_scale, b_scale,
                                      m, n, k, 128, 128, fp8._DTYPE_INT_MAP[out.dtype], use_tma=False)

    def tune(cfg):
        return (cfg.BLOCK_SIZE_M, cfg.occupancy, cfg.swap_ab) == (block_m, occupancy, False)
    return Config(launch=launch, tune=tune)


def grouped(groups, rows, n, k):
    def launch(torch):
        a = torch.empty(groups * rows, k, dtype=torch.float8_e4m3fn)
        b = torch.empty(groups, n, k, dtype=torch.float8_e4m3fn)
        a_scale = torch.empty(groups * rows, cdiv(k, 128), dtype=torch.float32)
        b_scale = torch.empty(groups, cdiv(n, 128), cdiv(k, 128), dtype=torch.float32)
        m_indptr = torch.empty(groups + 1, dtype=torch.int32)
        fp8.group_gemm_fp8_nt_groupwise_cutile(a, b, a_scale, b_scale, m_indptr,
                                               torch.empty(groups * rows, n, dtype=torch.bfloat16))

    return Config(launch=launch, problem=tile_share(groups * rows, n, "BLOCK_SIZE_{}"))


CONFIGS = {
    # DeepSeek-V3 shapes: a 7168 -> 2112 projection (the MLA down-projection) for 2048 tokens.
    "dense_m2048_n2112_k7168_64": dense(2048, 2112, 7168, 64, 2, False),
    "dense_m16_n7168_k2048_16_swap": dense(16, 7168, 2048, 16, 1, True),
    "dense_gather_m2048_n2112_k7168_64": gather(2048, 2112, 7168, 64, 2),
    "grouped_g8_m256_n4096_k7168": grouped(8, 256, 4096, 7168),
}
