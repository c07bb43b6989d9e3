"""TileGym's Unsloth SwiGLU and GEGLU kernels (forward and backward), launched by the suite's own host functions.

Each configuration calls one of ``tilegym.suites.unsloth.cutile``'s
activation functions as Unsloth's MLP calls it: the gate and up projections
of a Llama-3-8B MLP (intermediate size 14336) for 2 sequences of 4096
tokens; the backward functions take the upstream gradient flattened to
rows, as Unsloth passes it. The forward functions tune the occupancy: the
gate answers with occupancy 1, the kernel's own hint.
"""
from tilegym.suites.unsloth.cutile import geglu, swiglu

from tileperf_dump import Config

BATCH, SEQ, INTERMEDIATE = 2, 4096, 14336  # Llama-3-8B's MLP


def forward(fn):
    def launch(torch):
        gate = torch.empty(BATCH, SEQ, INTERMEDIATE, dtype=torch.bfloat16)
        fn(gate, torch.empty(BATCH, SEQ, INTERMEDIATE, dtype=torch.bfloat16))
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 1)


def backward(fn):
    def launch(torch):
        rows = lambda: torch.empty(BATCH * SEQ, INTERMEDIATE, dtype=torch.bfloat16)
        fn(rows(), rows(), rows())
    return Config(launch=launch)


CONFIGS = {
    "swiglu_fg_b2_s4096_h14336": forward(swiglu.swiglu_fg),
    "swiglu_bwd_b2_s4096_h14336": backward(swiglu.swiglu_bwd),
    "geglu_exact_fwd_b2_s4096_h14336": forward(geglu.geglu_exact_forward),
    "geglu_exact_bwd_b2_s4096_h14336": backward(geglu.geglu_exact_backward),
    "geglu_approx_fwd_b2_s4096_h14336": forward(geglu.geglu_approx_forward),
    "geglu_approx_bwd_b2_s4096_h14336": backward(geglu.geglu_approx_backward),
}
