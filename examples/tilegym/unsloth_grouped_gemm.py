"""TileGym's Unsloth MoE grouped GEMM kernels (forward, and the backward's dX and dW; persistent over the SMs), launched by the suite's grouped_gemm as Unsloth's MoE calls it.

Qwen3-30B-A3B's first expert GEMM (hidden 2048 to the fused gate and up
projections, 2 x 768, over 128 experts, top-8 routing) for 4096 tokens,
its input gathered from the tokens (permute_x). The backward kernels (dX,
dW) run from ``backward()`` on its output, tuned as the forward is.
"""
from tilegym.suites.unsloth.cutile import grouped_gemm as gg

from tileperf_dump import Config

TOKENS, HIDDEN, MOE_INTERMEDIATE, EXPERTS, TOPK = 4096, 2048, 768, 128, 8  # Qwen3-30B-A3B


def first_gemm(backward=None):
    def launch(torch):
        x = torch.empty(TOKENS, HIDDEN, dtype=torch.bfloat16, requires_grad=bool(backward))
        w = torch.empty(EXPERTS, 2 * MOE_INTERMEDIATE, HIDDEN, dtype=torch.bfloat16, requires_grad=bool(backward))
        m_sizes = torch.empty(EXPERTS, dtype=torch.int32)
        gather = torch.empty(TOKENS * TOPK, dtype=torch.int32)
        y = gg.grouped_gemm_cutile(x, w, m_sizes, TOPK, gather_indices=gather, permute_x=True)
        if backward:  # the backward of its autograd Function (dX, then dW), as training reaches it
            y.backward(torch.empty_like(y))
    # The occupancy it tunes: 1, the kernel's own hint.
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1, launch_kernel=backward)


CONFIGS = {
    "fwd_permute_x_t4096_e128_top8_n1536_k2048": first_gemm(),
    "bwd_dx_permute_x_t4096_e128_top8_n1536_k2048": first_gemm(gg._grouped_gemm_dX_kernel_ct),
    "bwd_dw_permute_x_t4096_e128_top8_n1536_k2048": first_gemm(gg._grouped_gemm_dW_kernel_ct),
}
