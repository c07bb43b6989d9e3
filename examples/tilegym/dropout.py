"""TileGym's cuTile dropout kernel (training), launched by TileGym's public op ``dropout``.

A GPT-2-style residual dropout (p = 0.1) of 4096 tokens of a 4096-wide
hidden state; the seed is a compile-time constant of the kernel, fixed here.
"""
from tilegym.ops.cutile.dropout import dropout

from tileperf_dump import Config


def op(tokens, hidden, p):
    def launch(torch):
        dropout(torch.empty(tokens, hidden, dtype=torch.bfloat16), seed=0, p=p)
    return Config(launch=launch)


CONFIGS = {
    "dropout_p01_t4096_h4096": op(4096, 4096, 0.1),
}
