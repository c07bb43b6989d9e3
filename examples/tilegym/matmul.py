"""TileGym's cuTile GEMM kernels (matmul, batched, grouped, and the fused Linear + GLU activation), launched by TileGym's public ops.

Each configuration calls TileGym's op with fake tensors of Llama-3-8B's
MLP (hidden 4096, intermediate 14336), its attention (32 heads of 128) or
Mixtral-8x7B's experts. Every one of these ops tunes with cuTile's
``exhaustive_search`` and has no untuned default: ``tune=`` takes the first
entry of the architecture's search space (the one listed first for it).
"""
from tilegym.ops.cutile.bmm import bmm as tg_bmm
from tilegym.ops.cutile.group_gemm import group_gemm
from tilegym.ops.cutile.linear_gluact_linear import _linear_gluact_fwd_kernel, linear_gluact_linear
from tilegym.ops.cutile.matmul import matmul as tg_matmul

from tileperf_dump import Config, Problem, cdiv

HIDDEN, INTERMEDIATE, TOKENS = 4096, 14336, 4096  # Llama-3-8B, a prefill of 4096 tokens


def first(cfg):
    return True


def matmul(m, n, k, **variant):
    """``variant``: the op's ``trans_b``, ``static_persistent``; B is (n, k) when transposed."""
    def launch(torch):
        b = (n, k) if variant.get("trans_b") else (k, n)
        tg_matmul(torch.empty(m, k, dtype=torch.bfloat16), torch.empty(*b, dtype=torch.bfloat16), **variant)
    return Config(launch=launch, tune=first)


def bmm(batch, m, n, k, static_persistent):
    def launch(torch):
        tg_bmm(torch.empty(batch, m, k, dtype=torch.bfloat16), torch.empty(batch, k, n, dtype=torch.bfloat16),
               static_persistent=static_persistent)
    return Config(launch=launch, tune=first)


def grouped(groups, rows, n, k):
    """One GEMM per expert, its weight (n, k) as nn.Linear keeps it. The
    kernel reads each group's shapes from its list of arrays (memory): its
    ``while`` takes each program's share of a group's tiles, its K loop the
    K tiles."""
    def launch(torch):
        group_gemm([torch.empty(rows, k, dtype=torch.bfloat16) for _ in range(groups)],
                   [torch.empty(n, k, dtype=torch.bfloat16) for _ in range(groups)], transpose_b=True)

    def problem(target):
        c = target.launch.constants
        tiles = cdiv(rows, c["TILE_M"]) * cdiv(n, c["TILE_N"])
        return Problem(trips={"while": cdiv(tiles, target.launch.grid[0]), "kk": cdiv(k, c["TILE_K"])})
    return Config(launch=launch, tune=first, problem=problem)


def gluact(tokens):
    """The fused gate/up projection and SiLU; the op then launches the down
    projection through TileGym's matmul (gated above)."""
    def launch(torch):
        w = torch.empty(INTERMEDIATE, HIDDEN, dtype=torch.bfloat16)
        linear_gluact_linear(torch.empty(tokens, HIDDEN, dtype=torch.bfloat16), w, torch.empty_like(w),
                             torch.empty(HIDDEN, INTERMEDIATE, dtype=torch.bfloat16), act_type="silu")
    return Config(launch=launch, tune=first, launch_kernel=_linear_gluact_fwd_kernel)


CONFIGS = {
    # The up projection (4096 -> 14336), B row-major (k, n).
    "matmul_m4096_n14336_k4096": matmul(TOKENS, INTERMEDIATE, HIDDEN),
    # The down projection (14336 -> 4096) against nn.Linear's (n, k) weight.
    "matmul_persistent_m4096_n4096_k14336": matmul(TOKENS, HIDDEN, INTERMEDIATE, trans_b=True,
                                                   static_persistent=True),
    # Attention scores of 32 heads: (2048 x 128) @ (128 x 2048) per head.
    "bmm_persistent_b32_m2048_n2048_k128": bmm(32, 2048, 2048, 128, static_persistent=True),
    "bmm_b32_m2048_n2048_k128": bmm(32, 2048, 2048, 128, static_persistent=False),
    # Mixtral-8x7B: 8 experts of 512 tokens each, 4096 -> 14336.
    "group_gemm_g8_m512_n14336_k4096": grouped(8, 512, INTERMEDIATE, HIDDEN),
    "linear_gluact_silu_t4096": gluact(TOKENS),
}
