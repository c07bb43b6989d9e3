"""TileGym's cuTile RMSNorm and LayerNorm kernels (forward, and RMSNorm's backward), launched by TileGym's public ops.

Each configuration calls TileGym's op as a model calls it, with fake
tensors of Llama-3-8B's hidden size (4096) or, for the channels-first
LayerNorm, ConvNeXt-T's first stage; the kernel is the one the op picks for
that shape (or its ``mode=``). Where TileGym tunes (the persistent LayerNorm),
``tune=`` takes TileGym's own default for the architecture.
"""
from tilegym.ops.cutile.layer_norm import layer_norm
from tilegym.ops.cutile.layer_norm_legacy import layer_norm_legacy, persistent_layer_norm
from tilegym.ops.cutile.rms_norm import rms_norm, rms_norm_backward

from tileperf_dump import Config

HIDDEN = 4096  # Llama-3-8B


def rms(tokens, **mode):
    def launch(torch):
        x = torch.empty(tokens, HIDDEN, dtype=torch.bfloat16)
        rms_norm(x, (HIDDEN,), torch.empty(HIDDEN, dtype=torch.bfloat16), 1e-5, **mode)
    return Config(launch=launch)


def rms_backward(tokens):
    def launch(torch):
        x = torch.empty(tokens, HIDDEN, dtype=torch.bfloat16)
        rms_norm_backward(x, torch.empty_like(x), torch.empty(HIDDEN, dtype=torch.bfloat16),
                          torch.empty(tokens, dtype=torch.float32))
    return Config(launch=launch)


def layer(shape, start_dim, end_dim):
    """``layer_norm`` normalizes dimensions [start_dim, end_dim)."""
    def launch(torch):
        c = shape[start_dim]
        layer_norm(torch.empty(*shape, dtype=torch.bfloat16), start_dim, end_dim,
                   torch.empty(c, dtype=torch.bfloat16), torch.empty(c, dtype=torch.bfloat16), 1e-5)
    return Config(launch=launch)


def legacy(tokens, op, tune=None):
    def launch(torch):
        w = torch.empty(HIDDEN, dtype=torch.bfloat16)
        op(torch.empty(tokens, HIDDEN, dtype=torch.bfloat16), (HIDDEN,), w, torch.empty_like(w), 1e-5)
    return Config(launch=launch, tune=tune)


CONFIGS = {
    # Prefill (4096 tokens): the op picks its static persistent kernel.
    "rms_norm_persistent_t4096": rms(4096),
    # Decode (128 tokens, fewer than two waves): the op picks its gather kernel.
    "rms_norm_gather_t128": rms(128),
    "rms_norm_cached_t4096": rms(4096, mode="multi_wave_cached"),
    "rms_norm_backward_t4096": rms_backward(4096),
    # ConvNeXt-T's channels-first LayerNorm: 96 channels of 56 x 56 pixels, batch 32 (the tiled kernel).
    "layer_norm_nchw_b32_c96_56x56": layer((32, 96, 56, 56), 1, 2),
    # A transformer's LayerNorm over the hidden size (a single innermost element: the gather kernel).
    "layer_norm_rows_t4096": layer((4096, HIDDEN), 1, 2),
    "layer_norm_legacy_t4096": legacy(4096, layer_norm_legacy),
    # TileGym's default with autotuning off (sm_90 and later): 8 rows a block, 8 worker warps.
    "persistent_layer_norm_t4096": legacy(4096, persistent_layer_norm,
                                          tune=lambda cfg: (cfg.BLOCK_N, cfg.num_worker_warps) == (8, 8)),
}
