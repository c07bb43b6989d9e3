"""TileGym's Unsloth RMSNorm and LayerNorm kernels (forward and backward), launched by the suite's autograd Functions as their users call them.

``rms_layernorm`` normalises Llama-3-8B's hidden states (4096) for 2
sequences of 4096 tokens; ``layernorm`` (with a bias) takes the same
shape. Both functions tune the occupancy: the gate answers with occupancy
1, the kernel's own hint. Their backward kernels run from ``backward()``
on the function's output, as a user's training step reaches them (tuned
the same way).
"""
from tilegym.suites.unsloth.cutile import layernorm, rms_layernorm

from tileperf_dump import Config

BATCH, SEQ, HIDDEN = 2, 4096, 4096  # Llama-3-8B


def rms(gemma=False, backward=False):
    def launch(torch):
        x = torch.empty(BATCH, SEQ, HIDDEN, dtype=torch.bfloat16, requires_grad=backward)
        y = rms_layernorm.rms_layernorm(x, torch.empty(HIDDEN, dtype=torch.bfloat16), eps=1e-5, gemma=gemma)
        if backward:  # the backward of its autograd Function, as a user's y.backward() reaches it
            y.backward(torch.empty_like(y))
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


def layer(backward=False):
    def launch(torch):
        x = torch.empty(BATCH, SEQ, HIDDEN, dtype=torch.bfloat16, requires_grad=backward)
        w, b = torch.empty(HIDDEN, dtype=torch.bfloat16), torch.empty(HIDDEN, dtype=torch.bfloat16)
        y = layernorm.layernorm(x, w, b, eps=1e-5)
        if backward:
            y.backward(torch.empty_like(y))
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


CONFIGS = {
    "rms_layernorm_fwd_b2_s4096_h4096": rms(),
    "rms_layernorm_bwd_b2_s4096_h4096": rms(backward=True),
    "layernorm_fwd_b2_s4096_h4096": layer(),
    "layernorm_bwd_b2_s4096_h4096": layer(backward=True),
}
