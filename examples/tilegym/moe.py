"""TileGym's cuTile mixture-of-experts kernels (the four stages of moe_align_block_size, the fused expert GEMM, the activation-gradient backward), launched by TileGym's public ops.

Shapes are Mixtral-8x7B's (8 experts, top-2, hidden 4096, intermediate
14336) for a batch of 4096 tokens. The fused expert GEMM is launched with the
routing tensors moe_align_block_size returns and the tile configuration
TileGym's ``fused_experts_impl`` gives the cuTile backend. Where TileGym tunes
(the backward), ``tune=`` takes its default with autotuning disabled.
"""
from tilegym.ops.cutile import moe_align_block as align
from tilegym.ops.cutile.moe import _fused_moe_kernel, invoke_fused_moe_kernel
from tilegym.ops.cutile.moe_actgrad_bwd import moe_actgrad_bwd

from tileperf_dump import Config, Problem, cdiv

EXPERTS, TOP_K, HIDDEN, INTERMEDIATE, TOKENS = 8, 2, 4096, 14336, 4096  # Mixtral-8x7B
BLOCK = 128  # the TILE_SIZE_M fused_experts_impl aligns to


def align_stage(kernel, problem=None):
    def launch(torch):
        align.moe_align_block_size(torch.empty(TOKENS, TOP_K, dtype=torch.int32), BLOCK, EXPERTS)
    return Config(launch=launch, launch_kernel=getattr(align, kernel), problem=problem)


# The scatter stage stamps each expert's blocks, counted from the prefix sums
# in memory: with balanced routing, 8192 / 8 rows an expert in blocks of 128.
STAMPED_BLOCKS = Problem(trips={"i": cdiv(TOKENS * TOP_K // EXPERTS, BLOCK)})


def fused_moe_gate_up():
    """The gate/up projection of every token's two experts (4096 -> 2 x 14336)."""
    def launch(torch):
        topk_ids = torch.empty(TOKENS, TOP_K, dtype=torch.int32)
        sorted_ids, expert_ids, padded, _, _ = align.moe_align_block_size(topk_ids, BLOCK, EXPERTS)
        invoke_fused_moe_kernel(
            torch.empty(TOKENS, HIDDEN, dtype=torch.bfloat16),
            torch.empty(EXPERTS, 2 * INTERMEDIATE, HIDDEN, dtype=torch.bfloat16),
            torch.empty(TOKENS, TOP_K, 2 * INTERMEDIATE, dtype=torch.bfloat16), None, None,
            torch.empty(TOKENS, TOP_K, dtype=torch.float32), topk_ids, sorted_ids, expert_ids, padded,
            False, TOP_K, dict(TILE_SIZE_M=BLOCK, TILE_SIZE_N=128, TILE_SIZE_K=64, GROUP_SIZE_M=32),
            compute_type=torch.bfloat16, use_fp8_w8a8=False)
    return Config(launch=launch, launch_kernel=_fused_moe_kernel)


def actgrad_backward():
    """SwiGLU's gradient through the down projection, tokens grouped by
    expert (1024 rows each when balanced)."""
    def launch(torch):
        rows = TOKENS * TOP_K
        h = torch.empty(rows, 2 * INTERMEDIATE, dtype=torch.bfloat16)
        index = torch.empty(rows, dtype=torch.int32)
        moe_actgrad_bwd(torch.empty(TOKENS, HIDDEN, dtype=torch.bfloat16), h,
                        torch.empty(EXPERTS, INTERMEDIATE, HIDDEN, dtype=torch.bfloat16), torch.empty_like(h),
                        torch.empty(rows, dtype=torch.float32), None, None,
                        torch.empty(rows, INTERMEDIATE, dtype=torch.bfloat16),
                        torch.empty(rows, dtype=torch.float32), torch.empty(EXPERTS + 1, dtype=torch.int32),
                        index, torch.empty_like(index), "swiglu", max_tokens_per_expert=rows // EXPERTS)

    def default(cfg, target):  # TileGym's tiles with autotuning disabled
        block_m = 64 if target.name == "sm_120" else 128
        return (cfg.BLOCK_M, cfg.BLOCK_N, cfg.BLOCK_K, cfg.occupancy) == (block_m, 128, 64, 1)
    return Config(launch=launch, tune=default)


CONFIGS = {
    "align_histogram_t4096_e8": align_stage("_moe_align_block_size_stage1_kernel"),
    "align_prefix_t4096_e8": align_stage("_moe_align_block_size_stage2_kernel"),
    "align_padding_t4096_e8": align_stage("_moe_align_block_size_stage3_kernel"),
    "align_scatter_t4096_e8": align_stage("_moe_align_block_size_stage4b_scatter_kernel", STAMPED_BLOCKS),
    "fused_moe_gate_up_t4096_e8": fused_moe_gate_up(),
    "actgrad_bwd_swiglu_t4096_e8": actgrad_backward(),
}
