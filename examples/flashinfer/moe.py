"""FlashInfer's cuTile BF16 fused mixture of experts (routing permutation, grouped GEMMs, gated and plain activations, combine, and their 64-bit twins), launched by FlashInfer's own host code.

Each configuration runs FlashInfer's pipeline `run_moe` (or, for the first
GEMM, which the pipeline launches before the second, the routing `_permute`
and `_grouped_gemm` it is made of; `launch_activation` for an activation
that is not gated) on fake tensors of a real model's MoE
layer, with the workspace of `allocate_workspace` and FlashInfer's default
BF16 tactic for the architecture; `launch_kernel=` picks the kernel it gates
among the pipeline's launches. The `*_i64` twins are the launchers' own
choice for tensors past 2^31 elements. Loops whose counts the kernels read
from memory (the padded routing rows, each expert's blocks) are declared for
balanced routing, as FlashInfer's tuner feeds the pipeline.
"""
from flashinfer.fused_moe import api, runners
from flashinfer.fused_moe.cutile import activation, moe

from tileperf_dump import Config, Problem, cdiv

# experts, top-k, hidden, intermediate (each of the gated pair)
MIXTRAL = (8, 2, 4096, 14336)        # Mixtral-8x7B
DEEPSEEK_V3 = (256, 8, 7168, 2048)   # DeepSeek-V3 (routed experts)
QWEN3_30B = (128, 8, 2048, 768)      # Qwen3-30B-A3B


def default_tactic(torch):
    """FlashInfer's default tactic of the cuTile BF16 runner (tile_n, tile_k,
    occupancy) for the architecture, from the runner's own table; sm_100,
    which the runner does not list, takes sm_90's."""
    major, minor = torch.cuda.get_device_capability()
    table = runners._CUTILE_BF16_DEFAULT_GEMM_CONFIGS
    return moe.GemmConfig(*table.get(major * 10 + minor, table[90]))


def run(model, tokens, block, sorted_io=False, gemm1=False):
    """run_moe with SwiGLU, FlashInfer's default activation; with `gemm1`,
    the routing and the first grouped GEMM only. `block` and `sorted_io` are
    the runner's: its routing block for the rows per expert, and the sorted
    GEMM I/O it takes from 32768 assignments of experts 1024 wide or more."""
    experts, top_k, hidden, inter = model

    def launch(torch):
        bf16 = torch.bfloat16
        x = torch.empty(tokens, hidden, dtype=bf16)
        ids = torch.empty(tokens, top_k, dtype=torch.int32)
        w1 = torch.empty(experts, hidden, 2 * inter, dtype=bf16)
        w2 = torch.empty(experts, inter, hidden, dtype=bf16)
        ws = moe.allocate_workspace(num_tokens=tokens, hidden_size=hidden, intermediate_size=inter,
                                    num_experts=experts, top_k=top_k, is_gated=True,
                                    block_sizes=(block,), device=x.device, sorted_io=sorted_io)
        tactic = default_tactic(torch)
        if gemm1:
            moe._grouped_gemm(x, w1, *moe._permute(ids, experts, block, ws), ws.gemm1_out,
                              top_k=top_k, block_size=block, config=tactic)
        else:
            moe.run_moe(x, ids, torch.empty(tokens, top_k, dtype=torch.float32), w1, w2,
                        torch.empty(tokens, hidden, dtype=bf16), ws, activation=api.SwiGLU(),
                        block_size=block, gemm1_config=tactic, gemm2_config=tactic,
                        sorted_io=sorted_io)
    return launch


def stage(kernel, model, tokens, block, sorted_io=False, gemm1=False):
    """One kernel of the pipeline. Its loops whose counts come from memory
    are those of balanced routing (tokens spread evenly over the experts, as
    FlashInfer's tuner routes them): each expert's blocks of the padded rows
    (`index`), and each grouped-GEMM program's share of the live blocks
    (`iteration`)."""
    experts, top_k = model[:2]
    blocks = cdiv(cdiv(tokens * top_k, experts), block)
    name = kernel._pyfunc.__name__
    problem = None
    if name == "_permute_block_expert":
        problem = Problem(trips={"index": blocks})
    elif name.startswith("_grouped_gemm"):
        def problem(t):
            return Problem(trips={"iteration": cdiv(experts * blocks, t.launch.grid[0])})
    return Config(launch=run(model, tokens, block, sorted_io, gemm1), launch_kernel=kernel,
                  problem=problem)


def plain(rows, inter):
    """An activation that is not gated (ReLU^2) through launch_activation:
    FlashInfer's pipelines fuse those into their first GEMM, so this
    launcher alone reaches the kernel."""
    def launch(torch):
        x = torch.empty(rows, inter, dtype=torch.bfloat16)
        activation.launch_activation(x, torch.empty(rows, inter, dtype=torch.bfloat16), api.ReLU2())
    return Config(launch=launch)


CONFIGS = {
    # Mixtral-8x7B prefill, 4096 tokens: 1024 rows per expert, 128-row blocks.
    "permute_chunk_rank_mixtral_t4096": stage(moe._permute_chunk_rank, MIXTRAL, 4096, 128),
    "permute_scan_mixtral_t4096": stage(moe._permute_scan, MIXTRAL, 4096, 128),
    "permute_scatter_mixtral_t4096": stage(moe._permute_scatter, MIXTRAL, 4096, 128),
    "permute_block_expert_mixtral_t4096": stage(moe._permute_block_expert, MIXTRAL, 4096, 128),
    "grouped_gemm1_mixtral_t4096": stage(moe._grouped_gemm_bf16, MIXTRAL, 4096, 128, gemm1=True),
    "swiglu_mixtral_t4096": stage(activation._gated_activation, MIXTRAL, 4096, 128),
    "grouped_gemm2_mixtral_t4096": stage(moe._grouped_gemm_bf16, MIXTRAL, 4096, 128),
    "combine_mixtral_t4096": stage(moe._combine, MIXTRAL, 4096, 128),
    # DeepSeek-V3 prefill, 4096 tokens (128 rows per expert, sorted GEMM I/O):
    # 256 experts make the routing scan three kernels, and expert weights of
    # 3.8G elements take the 64-bit grouped GEMM.
    "permute_scan_partials_deepseek_v3_t4096": stage(moe._permute_scan_partials, DEEPSEEK_V3, 4096, 64, True),
    "permute_scan_combine_deepseek_v3_t4096": stage(moe._permute_scan_combine, DEEPSEEK_V3, 4096, 64, True),
    "permute_scan_bases_deepseek_v3_t4096": stage(moe._permute_scan_bases, DEEPSEEK_V3, 4096, 64, True),
    "grouped_gemm2_i64_deepseek_v3_t4096": stage(moe._grouped_gemm_bf16_i64, DEEPSEEK_V3, 4096, 64, True),
    # DeepSeek-V3, 65536 tokens: activations and expert outputs past 2^31
    # elements take the 64-bit activation and combine.
    "swiglu_i64_deepseek_v3_t65536": stage(activation._gated_activation_i64, DEEPSEEK_V3, 65536, 128, True),
    "combine_i64_deepseek_v3_t65536": stage(moe._combine_i64, DEEPSEEK_V3, 65536, 128, True),
    # Qwen3-30B-A3B decode, 3 tokens (24 assignments): routing in one program.
    "permute_small_qwen3_30b_t3": stage(moe._permute_small, QWEN3_30B, 3, 32),
    # Nemotron-3-Nano-30B-A3B's ReLU^2 experts (1856 wide, 6 of 128 per
    # token): 4096 tokens, and 262144 (2.9G elements, the 64-bit kernel).
    "relu2_nemotron3_nano_t4096": plain(4096 * 6, 1856),
    "relu2_i64_nemotron3_nano_t262144": plain(262144 * 6, 1856),
}
