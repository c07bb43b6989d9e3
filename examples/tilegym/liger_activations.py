"""TileGym's cuTile ports of Liger's activation kernels (SwiGLU, GEGLU, ReLU-squared, softmax, sparsemax), launched by the suite's own ops and host functions.

Forward kernels are launched by the suite's registered ops (each an autograd
Function's forward), the SwiGLU, GEGLU and ReLU-squared backward kernels by
``backward()`` on the op's output (its Function's backward); the softmax and sparsemax backward kernels by the host
functions the suite's backward calls. Where the suite tunes, ``tune=`` takes
the first of its candidates, its default with autotuning disabled. Rows are
4096 tokens (a batch of 2 sequences of 2048).
"""
from tilegym.suites.liger.cutile import geglu, relu_squared, softmax, sparsemax, swiglu

from tileperf_dump import Config

TOKENS = 4096


def first(launch, kernel=None):
    # The first of the candidates the suite tunes over: its choice with autotuning disabled.
    return Config(launch=launch, tune=lambda cfg: True, launch_kernel=kernel)


def gated(op, cols, backward=False):
    def launch(torch):
        a, b = (torch.empty(TOKENS, cols, dtype=torch.bfloat16, requires_grad=backward) for _ in range(2))
        c = op(a, b)
        if backward:  # the backward of the op's autograd Function, as a user's c.backward() reaches it
            c.backward(torch.empty_like(c))
    return first(launch)


def unary(op, cols, dtype="bfloat16", rows=TOKENS, backward=False):
    def launch(torch):
        y = op(torch.empty(rows, cols, dtype=getattr(torch, dtype), requires_grad=backward))
        if backward:
            y.backward(torch.empty_like(y))
    return first(launch)


def softmax_bwd(rows, cols):
    def launch(torch):
        y = softmax._softmax_forward_ct(torch.empty(rows, cols, dtype=torch.bfloat16))
        softmax._softmax_backward_ct(torch.empty_like(y), y)
    return first(launch)


def sparsemax_bwd(rows, cols):
    def launch(torch):
        x = torch.empty(rows, cols, dtype=torch.bfloat16)
        _, out_flat = sparsemax._sparsemax_forward_ct(x, -1)
        sparsemax._sparsemax_backward_ct(torch.empty_like(x), out_flat, -1)
    return first(launch, sparsemax._sparsemax_bwd_kernel)


CONFIGS = {
    # Llama-3-8B's intermediate size 14336 divides into whole tiles; Llama-2-7B's 11008 does not.
    "swiglu_fwd_aligned_4096x14336": gated(swiglu.swiglu, 14336),
    "swiglu_fwd_4096x11008": gated(swiglu.swiglu, 11008),
    "swiglu_bwd_aligned_4096x14336": gated(swiglu.swiglu, 14336, backward=True),
    "swiglu_bwd_4096x11008": gated(swiglu.swiglu, 11008, backward=True),
    # Gemma-7B's intermediate size 24576 (GeGLU).
    "geglu_fwd_4096x24576": gated(geglu.geglu, 24576),
    "geglu_bwd_4096x24576": gated(geglu.geglu, 24576, backward=True),
    "relu_squared_fwd_aligned_4096x14336": unary(relu_squared.relu_squared, 14336),
    "relu_squared_fwd_4096x11008": unary(relu_squared.relu_squared, 11008),
    "relu_squared_bwd_aligned_4096x14336": unary(relu_squared.relu_squared, 14336, backward=True),
    "relu_squared_bwd_4096x11008": unary(relu_squared.relu_squared, 11008, backward=True),
    # Attention probabilities of one Llama-3-8B head over a 4096-token context: a row in one
    # tile (bf16 by gather, fp32 by TMA); Llama-3's vocabulary 128256 takes the two-pass kernel.
    "softmax_fwd_gather_4096x4096": unary(softmax.softmax, 4096),
    "softmax_fwd_tma_4096x4096": unary(softmax.softmax, 4096, "float32"),
    "softmax_fwd_multi_1024x128256": unary(softmax.softmax, 128256, rows=1024),
    "softmax_bwd_fused_4096x4096": softmax_bwd(4096, 4096),
    "softmax_bwd_multi_1024x128256": softmax_bwd(1024, 128256),
    # Sparse attention weights over a 4096-token context (a row in one tile for the prefix sum).
    "sparsemax_fwd_4096x4096": unary(sparsemax.sparsemax, 4096),
    "sparsemax_bwd_4096x4096": sparsemax_bwd(4096, 4096),
}
