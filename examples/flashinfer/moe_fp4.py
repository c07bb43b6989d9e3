"""FlashInfer's cuTile FP4-weight MoE (NVFP4: e2m1 values, an e4m3 scale per 16), its quantization, packing and grouped GEMMs, launched by FlashInfer's own pipeline `run_moe` (sm_120 and sm_100).

Each configuration runs `fused_moe.cutile.fp4.run_moe` on fake tensors
of DeepSeek-V3's MoE layer over 8 GPUs in expert parallel (32 experts a GPU,
top 8, hidden 7168, intermediate 2048, SwiGLU) with FlashInfer's own
workspace (`allocate_workspace`) and the tactic FlashInfer's MoE runner falls
back to for the size (block size, GEMM1 fused or not, GEMM tiles); the gate
takes the launch of the kernel it names.
"""
from flashinfer.fused_moe.api import SwiGLU
from flashinfer.fused_moe.cutile import fp4

from tileperf_dump import Config, Problem, cdiv

EXPERTS, TOP_K, HIDDEN, INTER = 32, 8, 7168, 2048
NVFP4 = 16  # values per scale


def fp4_weights(torch, n, k, experts):
    """FlashInfer's prepared NVFP4 weights: two e2m1 values a byte, the scales
    swizzled in 128 x 4 blocks, a global scale per expert."""
    w = torch.empty(experts, n, k // 2, dtype=torch.uint8)
    scale = torch.empty(experts, n // 128, k // (4 * NVFP4), 32, 16, dtype=torch.float8_e4m3fn)
    return w, scale, torch.empty(experts, dtype=torch.float32)


def moe(tokens, kernel, block_size, fuse_gemm1, gemm1, gemm2=(128, 128, 2), activation_fp4=True,
        experts=EXPERTS):
    def launch(torch):
        x = torch.empty(tokens, HIDDEN, dtype=torch.bfloat16)
        topk_ids = torch.empty(tokens, TOP_K, dtype=torch.int32)
        topk_weights = torch.empty(tokens, TOP_K, dtype=torch.float32)
        workspace = fp4.allocate_workspace(
            num_tokens=tokens, hidden_size=HIDDEN, intermediate_size=INTER, num_experts=experts,
            top_k=TOP_K, is_gated=True, block_sizes=(block_size,), activation_fp4=activation_fp4,
            device=x.device)
        fp4.run_moe(x, topk_ids, topk_weights, *fp4_weights(torch, 2 * INTER, HIDDEN, experts),
                    *fp4_weights(torch, HIDDEN, INTER, experts),
                    torch.empty(tokens, HIDDEN, dtype=torch.bfloat16),
                    workspace, activation=SwiGLU(), activation_fp4=activation_fp4, fuse_gemm1=fuse_gemm1,
                    num_sms=torch.cuda.get_device_properties(0).multi_processor_count,
                    block_size=block_size, gemm1_config=fp4.GemmConfig(*gemm1),
                    gemm2_config=fp4.GemmConfig(*gemm2))
    gemm = kernel._pyfunc.__name__.startswith("_grouped_gemm")
    return Config(launch=launch, launch_kernel=kernel,
                  problem=live_blocks(tokens, block_size) if gemm else None)


def live_blocks(tokens, block_size):
    """The grouped GEMMs read the count of expert-sorted rows from memory and
    loop over their blocks, a grid's worth at a time: every expert gets the
    same rows, a multiple of the block size, so no block is padding."""
    def problem(target):
        return Problem(trips={"iteration": cdiv(tokens * TOP_K // block_size, target.launch.grid[0])})
    return problem


def prefill(kernel, tokens=2048, experts=EXPERTS):
    """2048 tokens (512 rows an expert): inputs sorted by expert, GEMM1 fused with SwiGLU."""
    return moe(tokens, kernel, 64, True, (256, 64, 2), experts=experts)


# The *_i64 twins, which the launchers take for tensors past 2^31 elements:
# all 256 of DeepSeek-V3's experts on one GPU (GEMM1's weights are 3.8e9
# values), or a prefill of 320Ki tokens (its activations, 2.3e9).
LONG, ALL_EXPERTS = 327680, 256


CONFIGS = {
    "quantize_fp4_t2048": prefill(fp4._quantize_fp4),
    "pack_fp4_rows_t2048": prefill(fp4._pack_fp4_rows),
    "grouped_gemm1_fused_t2048": prefill(fp4._grouped_gemm1_w4a4_fused),
    "grouped_gemm2_t2048": prefill(fp4._grouped_gemm_w4a4),
    # 512 tokens (128 rows an expert): GEMM1 apart, SwiGLU fused with the quantization.
    "activation_quantize_fp4_t512": moe(512, fp4._activation_quantize_fp4, 128, False, (128, 128, 2)),
    # Weights only in FP4 (W4A16), bf16 activations, 256 tokens (64 rows an expert).
    "grouped_gemm_w4a16_t256": moe(256, fp4._grouped_gemm_w4a16, 64, False, (128, 128, 2),
                                   activation_fp4=False),
    "quantize_fp4_i64_t327680": prefill(fp4._quantize_fp4_i64, LONG),
    "pack_fp4_rows_i64_t327680": prefill(fp4._pack_fp4_rows_i64, LONG),
    "grouped_gemm1_fused_i64_e256_t2048": prefill(fp4._grouped_gemm1_w4a4_fused_i64, experts=ALL_EXPERTS),
    "grouped_gemm2_i64_t327680": prefill(fp4._grouped_gemm_w4a4_i64, LONG),
    "activation_quantize_fp4_i64_t327680": moe(LONG, fp4._activation_quantize_fp4_i64, 128, False,
                                               (128, 128, 2)),
    "grouped_gemm_w4a16_i64_e256_t256": moe(256, fp4._grouped_gemm_w4a16_i64, 64, False, (128, 128, 2),
                                            activation_fp4=False, experts=ALL_EXPERTS),
}
