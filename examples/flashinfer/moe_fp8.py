"""FlashInfer's cuTile FP8 fused-MoE kernels with per-tensor FP8 scales (fused_moe/cutile/fp8.py), launched by FlashInfer's own host functions.

Each configuration takes FlashInfer's own workspace (allocate_workspace) and
routing (_permute) for a real model's MoE layer and calls the host function
of fp8.py that run_moe calls for one step, with the buffers run_moe gives it;
the gate takes the kernel, its constants and its grid from the ct.launch it
makes (`launch_kernel` where the function launches several). Scales are
FlashInfer's per-tensor FP8 layout (cutile_fp8_per_tensor): one float32 per
expert for the weights, one for the activations. The `_i64` kernels are
FlashInfer's picks past 2^31 elements: DeepSeek-V3's expert weights are that
large, and its activations from 64Ki to 320Ki tokens.
"""
import dataclasses
import types

from flashinfer.fused_moe.api import SwiGLU
from flashinfer.fused_moe.cutile import fp8

from tileperf_dump import Config, Problem, cdiv


@dataclasses.dataclass(frozen=True)
class Model:
    experts: int
    top_k: int
    hidden: int
    inter: int


DSV3 = Model(experts=256, top_k=8, hidden=7168, inter=2048)   # DeepSeek-V3
QWEN3 = Model(experts=128, top_k=8, hidden=2048, inter=768)   # Qwen3-30B-A3B
SWIGLU = SwiGLU()                      # both models' activation, FlashInfer's defaults
TILE = fp8.GemmConfig(64, 128, 2)      # FlashInfer's first FP8 GEMM tuning candidate
WIDE = fp8.GemmConfig(128, 128, 2)     # its second (the one whose amax tiles fit the workspace)


def moe(torch, model, tokens, block, mx=False, w4=False):
    """What run_moe works with: FlashInfer's workspace and routing for
    `tokens` tokens, their hidden states, and the experts' weights (FP8, or
    MXFP4 with `w4`) with the scales FlashInfer's runner checks for (MX:
    E8M0 per 32 values)."""
    e, h, i = model.experts, model.hidden, model.inter
    ws = fp8.allocate_workspace(activation_fp8=True, block_scaled=mx, num_tokens=tokens, hidden_size=h,
                                intermediate_size=i, num_experts=e, top_k=model.top_k, is_gated=True,
                                block_sizes=(block,), device=torch.device("cuda"))
    slots, experts, post_pad = fp8._permute(torch.empty(tokens, model.top_k, dtype=torch.int32), e, block, ws)

    def weight(n, k):
        if w4:
            return (torch.empty(e, n, k // 2, dtype=torch.uint8),
                    torch.empty(e, cdiv(n, 128), cdiv(k // 32, 4), 32, 16, dtype=torch.float8_e8m0fnu))
        scale = torch.empty(e, n, k // 32, dtype=torch.float8_e8m0fnu) if mx else torch.empty(e, dtype=torch.float32)
        return torch.empty(e, n, k, dtype=torch.float8_e4m3fn), scale

    return types.SimpleNamespace(
        ws=ws, slots=slots, experts=experts, post_pad=post_pad, rows=slots.numel(), tokens=tokens,
        top_k=model.top_k, block=block, x=torch.empty(tokens, h, dtype=torch.bfloat16),
        w1=weight(2 * i, h), w2=weight(h, i), sms=torch.cuda.get_device_properties(0).multi_processor_count)


def m_blocks(model, tokens, block):
    """The row blocks of a balanced routing, each expert's rows padded to the
    block: the count the persistent and gather GEMMs read from memory."""
    return model.experts * cdiv(cdiv(tokens * model.top_k, model.experts), block)


def step(kernel, model, tokens, block, run, problem=None, **moe_kw):
    """A configuration of `kernel`, launched by `run(torch, m)`."""
    return Config(launch=lambda torch: run(torch, moe(torch, model, tokens, block, **moe_kw)),
                  launch_kernel=getattr(fp8, kernel), problem=problem)


def quantize_input(torch, m):
    """Per-tensor quantization of the hidden states (amax partials, the scale, then the quantization)."""
    fp8.quantize(m.x, m.ws.input_q_unsorted[:m.tokens], m.ws.input_scale_unsorted, m.ws.amax_partials,
                 block_scaled=False)


def quantize_activation(torch, m):
    """The unfused activation's quantization over the padded rows (the valid ones read from memory)."""
    fp8.quantize(m.ws.activation_out[:m.rows], m.ws.activation_q[:m.rows], m.ws.activation_scale,
                 m.ws.amax_partials, block_scaled=False, valid_rows=m.post_pad)


def pack_sorted(torch, m):
    """The quantized hidden states gathered into expert order."""
    fp8._pack_sorted_input(m.ws.input_q_unsorted[:m.tokens], m.ws.input_scale_unsorted, m.slots,
                           m.ws.input_q[:m.rows], m.ws.input_scale, top_k=m.top_k, block_scaled=False,
                           quantize_input=False)


def pack_quantize(torch, m):
    """Gathered into expert order and quantized with the input's scale in one pass."""
    fp8._pack_sorted_input(m.x, m.ws.input_scale, m.slots, m.ws.input_q[:m.rows], m.ws.input_scale,
                           top_k=m.top_k, block_scaled=False, quantize_input=True)


def gated_activation_quantize(torch, m):
    """SwiGLU of GEMM1's output and its per-tensor quantization: amax, scale, quantize."""
    fp8._gated_activation_quantize(m.ws.gemm1_out[:m.rows], m.ws.activation_q[:m.rows], m.ws.activation_scale,
                                   m.ws.amax_partials, m.post_pad, SWIGLU, block_scaled=False)


def sorted_gemm1(persistent=0, fused_amax=False, tile=TILE):
    """GEMM1 over the expert-sorted input: gate and up to gemm1_out, or (as
    run_moe does for decode on sm_90) with SwiGLU and the amax of its output
    fused, then the activation's scale from the tiles' amax."""
    def run(torch, m):
        amax = dict(amax_partials=m.ws.amax_partials, amax_scale=m.ws.activation_scale) if fused_amax else {}
        fp8.sorted_grouped_gemm(m.ws.input_q[:m.rows], m.ws.input_scale, *m.w1, m.slots, m.experts, m.post_pad,
                                m.ws.activation_out[:m.rows] if fused_amax else m.ws.gemm1_out[:m.rows],
                                config=tile, activation_fp8=True, block_scaled=False, weight_fp4=False,
                                activation=SWIGLU if fused_amax else None, gated_activation=fused_amax,
                                assignments=m.tokens * m.top_k, block_size=m.block, num_sms=m.sms,
                                persistent_factor=persistent, **amax)
    return run


def gather_gemm1(torch, m):
    """GEMM1 gathering the quantized hidden states by slot (run_moe's unsorted path)."""
    fp8.grouped_gemm(m.ws.input_q_unsorted[:m.tokens], m.ws.input_scale_unsorted, *m.w1, m.slots, m.experts,
                     m.post_pad, m.ws.gemm1_out[:m.tokens * m.top_k], top_k=m.top_k, block_size=m.block,
                     config=TILE, activation_fp8=True, block_scaled=False, weight_fp4=False)


def tile_share(model, tokens, block):
    """Each program's share of the row blocks (its `iteration` loop)."""
    return lambda t: Problem(trips={"iteration": cdiv(m_blocks(model, tokens, block), t.launch.grid[0])})


CONFIGS = {
    # A prefill batch of 4096 tokens (Qwen3-30B-A3B: 256 rows per expert, 64-row blocks).
    "amax_partials_qwen3_t4096": step("_amax_partials", QWEN3, 4096, 64, quantize_input),
    "amax_scale_qwen3_t4096": step("_amax_scale", QWEN3, 4096, 64, quantize_input),
    "quantize_qwen3_t4096": step("_quantize", QWEN3, 4096, 64, quantize_input),
    "amax_partials_rows_qwen3_t4096": step("_amax_partials_rows", QWEN3, 4096, 64, quantize_activation),
    "pack_sorted_qwen3_t4096": step("_pack_sorted", QWEN3, 4096, 64, pack_sorted),
    "pack_quantize_tensor_qwen3_t4096": step("_pack_quantize_tensor", QWEN3, 4096, 64, pack_quantize),
    "gated_activation_amax_qwen3_t4096": step("_gated_activation_amax", QWEN3, 4096, 64, gated_activation_quantize),
    "gated_activation_quantize_tensor_qwen3_t4096": step("_gated_activation_quantize_tensor", QWEN3, 4096, 64,
                                                         gated_activation_quantize),
    "sorted_grouped_gemm1_qwen3_t4096": step("_sorted_grouped", QWEN3, 4096, 64, sorted_gemm1()),
    # FlashInfer's resident grid: twice the SMs' worth of programs.
    "sorted_grouped_persistent_gemm1_qwen3_t4096": step("_sorted_grouped_persistent", QWEN3, 4096, 64,
                                                        sorted_gemm1(persistent=2),
                                                        problem=tile_share(QWEN3, 4096, 64)),
    # The gather path, which FlashInfer takes below 64 rows per expert: 512 tokens, 32-row blocks.
    "grouped_gemm1_qwen3_t512": step("_grouped", QWEN3, 512, 32, gather_gemm1, problem=tile_share(QWEN3, 512, 32)),
    # Decode: 64 tokens, 16-row blocks, GEMM1 with SwiGLU and the amax fused.
    "amax_scale_tiles_qwen3_t64": step("_amax_scale_tiles", QWEN3, 64, 16, sorted_gemm1(fused_amax=True, tile=WIDE)),
    # DeepSeek-V3: its expert weights (256 x 4096 x 7168) take the 64-bit GEMMs.
    "sorted_grouped_i64_gemm1_dsv3_t4096": step("_sorted_grouped_i64", DSV3, 4096, 64, sorted_gemm1()),
    "grouped_i64_gemm1_dsv3_t1024": step("_grouped_i64", DSV3, 1024, 32, gather_gemm1, problem=tile_share(DSV3, 1024, 32)),
    # Long prefills whose activations pass 2^31 elements (128-row blocks).
    "amax_partials_i64_dsv3_t327680": step("_amax_partials_i64", DSV3, 327680, 128, quantize_input),
    "amax_partials_rows_i64_dsv3_t131072": step("_amax_partials_rows_i64", DSV3, 131072, 128, quantize_activation),
    "quantize_i64_dsv3_t131072": step("_quantize_i64", DSV3, 131072, 128, quantize_activation),
    "pack_sorted_i64_dsv3_t65536": step("_pack_sorted_i64", DSV3, 65536, 128, pack_sorted),
    "pack_quantize_tensor_i64_dsv3_t65536": step("_pack_quantize_tensor_i64", DSV3, 65536, 128, pack_quantize),
    "gated_activation_amax_i64_dsv3_t65536": step("_gated_activation_amax_i64", DSV3, 65536, 128,
                                                  gated_activation_quantize),
    "gated_activation_quantize_tensor_i64_dsv3_t65536": step("_gated_activation_quantize_tensor_i64", DSV3, 65536,
                                                             128, gated_activation_quantize),
}
