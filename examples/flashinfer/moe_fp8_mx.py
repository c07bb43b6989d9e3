"""FlashInfer's cuTile MXFP8 fused-MoE kernels (fused_moe/cutile/fp8.py: E8M0 scales per 32 values), launched by FlashInfer's own host functions.

As moe_fp8.py, with FlashInfer's MXFP8 layouts (cutile_mxfp8): E4M3 values
with one E8M0 scale per 32 along K, for the activations [rows, K / 32] and
for the weights [experts, N, K / 32]; the fused GEMM1 takes MXFP4 weights
(cutile_mxfp4: E2M1 pairs in bytes, FlashInfer's swizzled 32 x 16 scale
tiles), the only weights FlashInfer's runner fuses gated GEMM1's
quantization for. tileiras has no float8_e8m0fnu on sm_90 (CMakeLists.txt).
"""
from flashinfer.fused_moe.cutile import fp8

from moe_fp8 import DSV3, QWEN3, SWIGLU, step

# The GEMM1 tile FlashInfer's runner fuses the quantization with (gated).
FUSED_TILE = fp8.GemmConfig(128, 128, 2)


def pack_quantize(torch, m):
    """The hidden states gathered into expert order and quantized to MXFP8 in one pass."""
    fp8._pack_sorted_input(m.x, m.ws.input_scale[:m.rows], m.slots, m.ws.input_q[:m.rows],
                           m.ws.input_scale[:m.rows], top_k=m.top_k, block_scaled=True, quantize_input=True)


def gated_activation_quantize(torch, m):
    """SwiGLU of GEMM1's output quantized to MXFP8."""
    fp8._gated_activation_quantize(m.ws.gemm1_out[:m.rows], m.ws.activation_q[:m.rows],
                                   m.ws.activation_scale[:m.rows], m.ws.amax_partials, m.post_pad, SWIGLU,
                                   block_scaled=True)


def fused_gemm1(torch, m):
    """GEMM1 with SwiGLU and the MXFP8 quantization of its output fused."""
    fp8.sorted_grouped_gemm1_fused_mx(m.ws.input_q[:m.rows], m.ws.input_scale[:m.rows], *m.w1, m.experts,
                                      m.post_pad, m.ws.activation_q[:m.rows], m.ws.activation_scale[:m.rows],
                                      activation=SWIGLU, block_size=m.block, config=FUSED_TILE, weight_fp4=True)


CONFIGS = {
    # Qwen3-30B-A3B, a prefill batch of 4096 tokens in 64-row blocks.
    "pack_quantize_mx_qwen3_t4096": step("_pack_quantize_mx", QWEN3, 4096, 64, pack_quantize, mx=True),
    "gated_activation_quantize_mx_qwen3_t4096": step("_gated_activation_quantize_mx", QWEN3, 4096, 64,
                                                     gated_activation_quantize, mx=True),
    "sorted_grouped_gemm1_fused_mx_qwen3_t4096": step("_sorted_grouped_gemm1_fused_mx", QWEN3, 4096, 64, fused_gemm1,
                                                      mx=True, w4=True),
    # DeepSeek-V3: its MXFP4 expert weights (256 x 4096 x 3584 bytes) take the 64-bit GEMM.
    "sorted_grouped_gemm1_fused_mx_i64_dsv3_t4096": step("_sorted_grouped_gemm1_fused_mx_i64", DSV3, 4096, 32,
                                                         fused_gemm1, mx=True, w4=True),
    # 65536 tokens, whose expert-sorted activations pass 2^31 elements (128-row blocks).
    "pack_quantize_mx_i64_dsv3_t65536": step("_pack_quantize_mx_i64", DSV3, 65536, 128, pack_quantize, mx=True),
    "gated_activation_quantize_mx_i64_dsv3_t65536": step("_gated_activation_quantize_mx_i64", DSV3, 65536, 128,
                                                         gated_activation_quantize, mx=True),
}
