"""FlashInfer's cuTile masked and ragged batched GEMMs with MXFP8 block scales, launched by FlashInfer's own host code (sm_120 and sm_100: tileiras has no 8-bit exponent type for sm_90).

The operands are e4m3 with a shared 8-bit exponent (float8_e8m0fnu) per 32
values, the scales in FlashInfer's packed 5-D layout; autotuning off, as
FLASHINFER_CUTILE_AUTOTUNE_DISABLED=1 sets it.
"""
from flashinfer.gemm.kernels.cutile import masked_scaled_bmm_cutile, ragged_scaled_bmm_cutile

from fi_launch import no_autotune, tile_share
from tileperf_dump import Config


def masked_mxfp8(q, m, n, k):
    def launch(torch):
        a = torch.empty(q, m, k, dtype=torch.float8_e4m3fn)
        b = torch.empty(q, n, k, dtype=torch.float8_e4m3fn)
        a_scale = torch.empty(q, m // 128, k // 128, 2, 256, dtype=torch.uint8)
        b_scale = torch.empty(q, n // 128, k // 128, 2, 256, dtype=torch.uint8)
        masked_m = torch.empty(q, dtype=torch.int32)
        with no_autotune(masked_scaled_bmm_cutile):
            masked_scaled_bmm_cutile.masked_scaled_bmm(a, b, a_scale, b_scale, masked_m, "mxfp8")
    return Config(launch=launch, launch_kernel=masked_scaled_bmm_cutile._masked_scaled_bmm_kernel,
                  problem=tile_share(q * m, n))


def ragged_mxfp8(q, total_m, n, k):
    """The experts' rows stacked (each a multiple of 128), A's scales in the
    same packed layout over the stack."""
    def launch(torch):
        a = torch.empty(total_m, k, dtype=torch.float8_e4m3fn)
        b = torch.empty(q, n, k, dtype=torch.float8_e4m3fn)
        a_scale = torch.empty(total_m // 128, k // 128, 2, 256, dtype=torch.uint8)
        b_scale = torch.empty(q, n // 128, k // 128, 2, 256, dtype=torch.uint8)
        m_indptr = torch.empty(q + 1, dtype=torch.int32)
        with no_autotune(ragged_scaled_bmm_cutile):
            ragged_scaled_bmm_cutile.ragged_scaled_bmm(a, b, a_scale, b_scale, m_indptr,
                                                       total_m // q, "mxfp8")
    return Config(launch=launch, problem=tile_share(total_m, n))


CONFIGS = {
    # 8 experts of 512 rows, DeepSeek-V3's 7168 -> 4096.
    "masked_mxfp8_q8_m512_n4096_k7168": masked_mxfp8(8, 512, 4096, 7168),
    "ragged_mxfp8_q8_m4096_n4096_k7168": ragged_mxfp8(8, 4096, 4096, 7168),
}
