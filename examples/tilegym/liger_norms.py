"""TileGym's cuTile ports of Liger's normalization kernels (RMSNorm, fused add+RMSNorm, LayerNorm, GroupNorm, PolyNorm, modulated RMSNorm, DyT), launched by the suite's own ops and host functions.

Forward kernels are launched by the suite's registered ops (each an autograd
Function's forward); a backward kernel is gated where a host function of the
suite launches it, called with what the forward host function returned, and
GroupNorm's and PolyNorm's by ``backward()`` on the op's output (its
Function's backward).
Where the suite tunes, ``tune=`` takes the first of its candidates, its
default with autotuning disabled. Rows are 4096 tokens (a batch of 2 sequences
of 2048).
"""
from tilegym.suites.liger.cutile import dyt, fused_add_rms_norm as farms, group_norm, layer_norm
from tilegym.suites.liger.cutile import modulated_rms_norm as mrms, poly_norm, rms_norm

from tileperf_dump import Config

TOKENS = 4096


def first(launch, kernel=None):
    # The first of the candidates the suite tunes over: its choice with autotuning disabled.
    return Config(launch=launch, tune=lambda cfg: True, launch_kernel=kernel)


def rms(hidden, weight=True):
    def launch(torch):
        x = torch.empty(TOKENS, hidden, dtype=torch.bfloat16)
        w = torch.empty(hidden, dtype=torch.bfloat16) if weight else None
        _, x2d, rstd, block = rms_norm._rms_norm_forward_ct(x, w, 1e-6, 0.0, rms_norm._CASTING_MODE_LLAMA)
        rms_norm._rms_norm_backward_ct(torch.empty_like(x), x2d, w, rstd, 0.0, block,
                                       rms_norm._CASTING_MODE_LLAMA, True)
    return launch


def fused_add(hidden):
    def launch(torch):
        x, r = (torch.empty(TOKENS, hidden, dtype=torch.bfloat16) for _ in range(2))
        w = torch.empty(hidden, dtype=torch.bfloat16)
        _, s, rstd, block, mode = farms._fused_add_rms_norm_forward_ct(x, r, w, 1e-6, 0.0, "llama")
        farms._fused_add_rms_norm_backward_ct(torch.empty_like(x), torch.empty_like(x), s, w, rstd,
                                              0.0, mode, block)
    return launch


def ln(hidden, dw=True):
    def launch(torch):
        x = torch.empty(TOKENS, hidden, dtype=torch.bfloat16)
        w, b = (torch.empty(hidden, dtype=torch.bfloat16) for _ in range(2))
        _, x2d, mean, rstd, block = layer_norm._layer_norm_forward_ct(x, w, b, 1e-5)
        layer_norm._layer_norm_backward_ct(torch.empty_like(x), x2d, w, b, mean, rstd, block,
                                           compute_dW=dw, compute_dB=dw)
    return launch


def group(batch, channels, groups, spatial, backward=False):
    def launch(torch):
        x = torch.empty(batch, channels, spatial, dtype=torch.bfloat16, requires_grad=backward)
        w, b = (torch.empty(channels, dtype=torch.bfloat16) for _ in range(2))
        y = group_norm.group_norm(x, channels, groups, w, b)
        if backward:  # the backward of the op's autograd Function, as a user's y.backward() reaches it
            y.backward(torch.empty_like(y))
    return launch


def poly(hidden, backward=False):
    def launch(torch):
        x = torch.empty(TOKENS, hidden, dtype=torch.bfloat16, requires_grad=backward)
        y = poly_norm.poly_norm(x, torch.empty(3, dtype=torch.bfloat16), torch.empty(1, dtype=torch.bfloat16))
        if backward:
            y.backward(torch.empty_like(y))
    return launch


def modulated(hidden, weight=True, batch=2):
    # One scale and shift row per sample (adaptive-norm conditioning), broadcast over its tokens.
    def launch(torch):
        x = torch.empty(batch, TOKENS // batch, hidden, dtype=torch.bfloat16)
        w = torch.empty(hidden, dtype=torch.bfloat16) if weight else None
        scale, shift = (torch.empty(batch, 1, hidden, dtype=torch.bfloat16) for _ in range(2))
        _, x2d, rstd, block, rows = mrms._modulated_rms_norm_forward_ct(
            x, w, scale, shift, 1e-6, 0.0, mrms._CASTING_MODE_LLAMA)
        mrms._modulated_rms_norm_backward_ct(torch.empty_like(x), x2d, w, scale, shift, rstd, 0.0,
                                             block, mrms._CASTING_MODE_LLAMA, rows, True)
    return launch


def dyt_op(hidden):
    def launch(torch):
        x = torch.empty(TOKENS, hidden, dtype=torch.bfloat16)
        alpha = torch.empty(1, dtype=torch.bfloat16)
        gamma, beta = (torch.empty(hidden, dtype=torch.bfloat16) for _ in range(2))
        dyt._dyt_forward_ct(x, alpha, gamma, beta)
        dyt._dyt_backward_ct(torch.empty_like(x), x, alpha, gamma, beta)
    return launch


CONFIGS = {
    # Llama-3-8B's hidden size 4096.
    "rms_norm_fwd_4096x4096": first(rms(4096), rms_norm._rms_norm_fwd_ct),
    "rms_norm_bwd_w_4096x4096": first(rms(4096), rms_norm._rms_norm_bwd_w_large_ct),
    "rms_norm_bwd_4096x4096": first(rms(4096, weight=False), rms_norm._rms_norm_bwd_large_ct),
    "fused_add_rms_norm_fwd_4096x4096": first(fused_add(4096), farms._fused_add_rms_norm_fwd_ct),
    # Qwen2.5-1.5B's hidden size 1536 takes the one-chunk backward, Qwen2.5-14B's 5120 the two-chunk one.
    "fused_add_rms_norm_bwd_4096x1536": first(fused_add(1536), farms._fused_add_rms_norm_bwd_persistent_ct),
    "fused_add_rms_norm_bwd_2c_4096x5120": first(fused_add(5120),
                                                 farms._fused_add_rms_norm_bwd_persistent_2c_ct),
    "layer_norm_fwd_4096x4096": first(ln(4096), layer_norm._layer_norm_fwd_kernel_ct),
    "layer_norm_bwd_4096x4096": first(ln(4096), layer_norm._layer_norm_bwd_combined_kernel_ct),
    "layer_norm_bwd_dx_4096x4096": first(ln(4096, dw=False), layer_norm._layer_norm_bwd_dx_kernel_ct),
    # Stable Diffusion's VAE: 512 channels in 32 groups over a 64x64 latent.
    "group_norm_fwd_b4_c512_g32_4096": first(group(4, 512, 32, 4096)),
    "group_norm_bwd_b4_c512_g32_4096": first(group(4, 512, 32, 4096, backward=True)),
    "poly_norm_fwd_4096x4096": first(poly(4096)),
    "poly_norm_bwd_4096x4096": first(poly(4096, backward=True)),
    "modulated_rms_norm_fwd_4096x4096": first(modulated(4096), mrms._modulated_rms_norm_fwd_ct),
    "modulated_rms_norm_bwd_w_4096x4096": first(modulated(4096), mrms._modulated_rms_norm_bwd_w_large_ct),
    "modulated_rms_norm_bwd_4096x4096": first(modulated(4096, weight=False), mrms._modulated_rms_norm_bwd_large_ct),
    "dyt_fwd_4096x4096": first(dyt_op(4096), dyt._dyt_fwd_kernel),
    "dyt_bwd_4096x4096": first(dyt_op(4096), dyt._dyt_bwd_kernel),
}
