"""TileGym's experimental cuTile kernels (mHC hyper-connections, sparse MLA, sliding-window attention), launched by TileGym's public ops.

Each configuration calls the op of ``tilegym.ops.cutile.experimental`` with
fake tensors of the model the kernel was written for: mHC's four residual
streams of DeepSeek-V3's hidden size (7168), DeepSeek-V3.2's sparse MLA (128
heads, 512 latent and 64 rotary dimensions, top-2048 keys), Mistral-7B's
sliding window (4096); NVFP4 quantization is in nvfp4.py. Where TileGym
tunes, ``tune=`` takes the first entry of its search space (what it launches
with autotuning disabled, for sparse MLA; mHC's GEMM has no untuned default).
"""
from tilegym.ops.cutile.experimental import mhc
from tilegym.ops.cutile.experimental.sparse_mla import tile_sparse_mla
from tilegym.ops.cutile.experimental.swa_attention import tile_swa_attention

from tileperf_dump import Config

TOKENS, STREAMS, HIDDEN = 4096, 4, 7168  # mHC's n = 4 streams of DeepSeek-V3's hidden size
MIX = 2 * STREAMS + STREAMS * STREAMS  # pre, post and residual mixing coefficients per token


def mhc_gemm_rms_scale(kernel):
    """The split-K GEMM with RMS partials, then the finalize kernel (scale, bias, sigmoid)."""
    def launch(torch):
        mhc.mhc_gemm_rms_scale(torch.empty(TOKENS, STREAMS * HIDDEN, dtype=torch.bfloat16),
                               torch.empty(STREAMS * HIDDEN, MIX, dtype=torch.bfloat16), STREAMS,
                               1.0, 1.0, 1.0, torch.empty(MIX, dtype=torch.float32))
    return Config(launch=launch, launch_kernel=getattr(mhc, kernel), tune=lambda cfg: True)


def mhc_apply_residual():
    def launch(torch):
        mhc.mhc_apply_residual(torch.empty(TOKENS, STREAMS * HIDDEN, dtype=torch.bfloat16),
                               torch.empty(TOKENS, HIDDEN, dtype=torch.bfloat16),
                               torch.empty(TOKENS, MIX, dtype=torch.float32), STREAMS)
    return Config(launch=launch)


def mhc_sinkhorn():
    def launch(torch):
        mhc.mhc_sinkhorn(torch.empty(TOKENS, MIX, dtype=torch.float32), STREAMS)
    return Config(launch=launch)


def sparse_mla(seq, heads=128, latent=512, rope=64, topk=2048):
    """Prefill of one sequence against its own keys: one latent key/value head."""
    def launch(torch):
        kv = torch.empty(1, 1, seq, latent, dtype=torch.bfloat16)
        tile_sparse_mla(torch.empty(1, heads, seq, latent, dtype=torch.bfloat16), kv, torch.empty_like(kv),
                        torch.empty(1, seq, 1, topk, dtype=torch.int32),
                        torch.empty(1, heads, seq, rope, dtype=torch.bfloat16),
                        torch.empty(1, 1, seq, rope, dtype=torch.bfloat16))
    return Config(launch=launch, tune=lambda cfg: True)


def swa(seq, heads=32, kv_heads=8, head_dim=128, window=4096):
    def launch(torch):
        kv = torch.empty(1, kv_heads, seq, head_dim, dtype=torch.float16)
        tile_swa_attention(torch.empty(1, heads, seq, head_dim, dtype=torch.float16), kv, torch.empty_like(kv),
                           window)
    return Config(launch=launch)


CONFIGS = {
    "mhc_split_gemm_rms_t4096": mhc_gemm_rms_scale("_mhc_split_gemm_rms_kernel"),
    "mhc_finalize_t4096": mhc_gemm_rms_scale("_mhc_finalize_scale_bias_sigmoid_kernel"),
    "mhc_apply_residual_t4096": mhc_apply_residual(),
    "mhc_sinkhorn_t4096": mhc_sinkhorn(),
    "sparse_mla_s4096_h128_topk2048": sparse_mla(4096),
    # Mistral-7B: 32 query heads, 8 key/value heads, a 4096-token window over 8192 tokens.
    "swa_mistral7b_s8192_w4096": swa(8192),
}
