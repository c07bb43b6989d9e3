"""FlashInfer's cuTile BF16 fused mixture of experts: the grouped GEMM, the gated activation and the combine, declared by hand.

FlashInfer's launchers of these kernels (run_moe, launch_activation) size
their tiles with flashinfer.utils, whose import compares torch versions and
loads the JIT: without torch it is a placeholder, so the launches are
declared here from the kernels' signatures and FlashInfer's own helpers of
flashinfer.fused_moe (the routing space, the activation's identity).
"""
import cuda.tile as ct
from cuda.tile.compilation import ScalarConstraint
from flashinfer.fused_moe import api, utils
from flashinfer.fused_moe.cutile import activation, moe

from tileperf_dump import Config, Problem, array, cdiv

# Qwen3-30B-A3B: 128 experts, 8 per token, hidden 2048, expert width 768.
TOKENS, HIDDEN, INTERMEDIATE, EXPERTS, TOP_K = 1024, 2048, 768, 128, 8
ASSIGNMENTS = TOKENS * TOP_K
BLOCK = 64
# SwiGLU with FlashInfer's default alpha and beta, unclamped (its default
# limit, float32's largest value, reaches the kernel as 0.0).
SWIGLU = (int(api.ActivationType.Swiglu), float(api.DEFAULT_SWIGLU_ALPHA),
          float(api.DEFAULT_SWIGLU_BETA), 0.0)
I32 = ScalarConstraint(ct.int32)


def grouped_gemm(rows_in, k, n, tile_n, tile_k, occupancy, gated_output):
    """One of run_moe's grouped GEMMs: rows gathered by expert, TILE_M = the
    routing block; the grid as run_moe's _grouped_gemm computes it."""
    padded = utils._cutile_max_permuted_rows(ASSIGNMENTS, EXPERTS, BLOCK)
    grid_m = max(1, min(cdiv(padded, BLOCK), ASSIGNMENTS))
    params = [array(ct.bfloat16, like=(rows_in * k,)), array(ct.bfloat16, like=(rows_in, k)),
              array(ct.bfloat16, like=(EXPERTS, n, k)), array(ct.int32, like=(padded,)),
              array(ct.int32, like=(cdiv(padded, BLOCK),)), array(ct.int32, like=(1,)),
              array(ct.bfloat16, like=(ASSIGNMENTS, n)), I32, I32, k, BLOCK, tile_n, tile_k,
              0, 0.0, 0.0, 0.0, False, False]
    problem = Problem(grid=(grid_m, cdiv(n, tile_n)),
                      trips={"iteration": cdiv(cdiv(padded, BLOCK), grid_m)})
    return Config(moe._grouped_gemm_bf16.replace_hints(occupancy=occupancy), params, problem=problem)


def gated_activation(tile_i):
    params = [array(ct.bfloat16, like=(ASSIGNMENTS, 2 * INTERMEDIATE)),
              array(ct.bfloat16, like=(ASSIGNMENTS, INTERMEDIATE)), *SWIGLU, INTERMEDIATE, tile_i,
              cdiv(INTERMEDIATE, tile_i)]
    return Config(activation._gated_activation, params,
                  problem=Problem(grid=(ASSIGNMENTS, cdiv(INTERMEDIATE, tile_i))))


def combine(tile_h):
    params = [array(ct.bfloat16, like=(ASSIGNMENTS * HIDDEN,)), array(ct.float32, like=(ASSIGNMENTS,)),
              array(ct.bfloat16, like=(TOKENS * HIDDEN,)), I32, HIDDEN, tile_h]
    return Config(moe._combine, params, problem=Problem(grid=(TOKENS, cdiv(HIDDEN, tile_h)),
                                                        trips={"expert_slot": TOP_K}))


CONFIGS = {
    # GEMM1: hidden 2048 -> 2 x 768 (gate and up), GEMM2: 768 -> 2048.
    "grouped_gemm1_qwen3_30b": grouped_gemm(TOKENS, HIDDEN, 2 * INTERMEDIATE, 128, 64, 1, True),
    "grouped_gemm2_qwen3_30b": grouped_gemm(ASSIGNMENTS, INTERMEDIATE, HIDDEN, 128, 64, 2, False),
    # launch_activation's tile: the next power of two of 768, at most 1024.
    "swiglu_qwen3_30b": gated_activation(1024),
    # _combine_tile_h for 1024 tokens: at most 1024 wide.
    "combine_qwen3_30b": combine(1024),
}
