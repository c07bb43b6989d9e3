"""TileGym's cuTile activation kernels (GELU, GEGLU, ReLU, SwiGLU, SiLU-and-mul; the backwards of GELU, GEGLU and the GLUs), launched by TileGym's own host code.

Each configuration calls TileGym's public op (the forward of its autograd
Function) with fake tensors of an LLM's MLP; the two GLU backward kernels
are launched by the module's backward launcher, which their autograd
Functions call; GELU's and GEGLU's backwards run from ``y.backward()`` on
the op's output, as a user's training step reaches them. Where TileGym tunes (SiLU-and-mul's occupancy), ``tune=``
takes the first of its candidates (no occupancy hint beyond the launch's own).
"""
from tilegym.ops.cutile import silu_and_mul as sm, swiglu as sw
from tilegym.ops.cutile.activation.geglu import geglu
from tilegym.ops.cutile.activation.gelu import gelu
from tilegym.ops.cutile.activation.relu import relu

from tileperf_dump import Config

TOKENS = 4096
LLAMA3_8B_INTERMEDIATE = 14336


def op(fn, shape, backward=False, **kwargs):
    def launch(torch):
        y = fn(torch.empty(*shape, dtype=torch.bfloat16, requires_grad=backward), **kwargs)
        if backward:  # the backward of its autograd Function, as a user's y.backward() reaches it
            y.backward(torch.empty_like(y))
    return Config(launch=launch)


def swiglu(backward=False):
    def launch(torch):
        a = torch.empty(TOKENS, LLAMA3_8B_INTERMEDIATE, dtype=torch.bfloat16)
        if backward:
            sw._swiglu_backward(torch.empty_like(a), a, torch.empty_like(a))
        else:
            sw.swiglu(a, torch.empty_like(a))
    return Config(launch=launch)


def silu_and_mul(backward=False):
    def launch(torch):
        x = torch.empty(TOKENS, 2 * LLAMA3_8B_INTERMEDIATE, dtype=torch.bfloat16)
        if backward:
            sm._silu_and_mul_backward(torch.empty(TOKENS, LLAMA3_8B_INTERMEDIATE, dtype=torch.bfloat16), x)
        else:
            sm.silu_and_mul(x)
    # The first candidate: no occupancy of its own, the hints the launcher picks for the tile.
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy is None)


CONFIGS = {
    # BERT-large's MLP (intermediate 4096), exact GELU.
    "gelu_t4096_n4096": op(gelu, (TOKENS, 4096)),
    "gelu_backward_t4096_n4096": op(gelu, (TOKENS, 4096), backward=True),
    # Gemma-7B's MLP: GeGLU (tanh) of gate and up halves, intermediate 24576.
    "geglu_tanh_t4096_n24576": op(geglu, (TOKENS, 2 * 24576), approximate="tanh"),
    "geglu_tanh_backward_t4096_n24576": op(geglu, (TOKENS, 2 * 24576), backward=True, approximate="tanh"),
    # OPT-6.7B's MLP: ReLU, intermediate 16384.
    "relu_t4096_n16384": op(relu, (TOKENS, 16384)),
    # Llama-3-8B's MLP (intermediate 14336).
    "swiglu_t4096_n14336": swiglu(),
    "swiglu_backward_t4096_n14336": swiglu(backward=True),
    "silu_and_mul_t4096_n14336": silu_and_mul(),
    "silu_and_mul_backward_t4096_n14336": silu_and_mul(backward=True),
}
