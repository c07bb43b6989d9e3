"""TileGym's Unsloth RMSNorm and LayerNorm forward kernels, launched by the suite's autograd Functions as their users call them.

``rms_layernorm`` normalises Llama-3-8B's hidden states (4096) for 2
sequences of 4096 tokens; ``layernorm`` (with a bias) takes the same
shape. Both functions tune the occupancy: the gate answers with occupancy
1, the kernel's own hint. Their backward kernels are launched only by
autograd's backward.
"""
from tilegym.suites.unsloth.cutile import layernorm, rms_layernorm

from tileperf_dump import Config

BATCH, SEQ, HIDDEN = 2, 4096, 4096  # Llama-3-8B


def rms(gemma=False):
    def launch(torch):
        x = torch.empty(BATCH, SEQ, HIDDEN, dtype=torch.bfloat16)
        rms_layernorm.rms_layernorm(x, torch.empty(HIDDEN, dtype=torch.bfloat16), eps=1e-5, gemma=gemma)
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


def layer():
    def launch(torch):
        x = torch.empty(BATCH, SEQ, HIDDEN, dtype=torch.bfloat16)
        w, b = torch.empty(HIDDEN, dtype=torch.bfloat16), torch.empty(HIDDEN, dtype=torch.bfloat16)
        layernorm.layernorm(x, w, b, eps=1e-5)
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


CONFIGS = {
    "rms_layernorm_fwd_b2_s4096_h4096": rms(),
    "layernorm_fwd_b2_s4096_h4096": layer(),
}
