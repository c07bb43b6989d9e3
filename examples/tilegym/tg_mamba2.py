"""Stand-in inputs of one Mamba2-2.7B layer for TileGym's Mamba-2 ops (mamba2.py, mamba2_backward.py)."""

HEADS, HEAD_DIM, STATE, GROUPS = 80, 64, 128, 1
FIRST = lambda cfg: True  # noqa: E731


def inputs(torch, batch=1, tokens=4096):
    """x, a, b, c, d, dt, init_state of one Mamba2-2.7B layer."""
    bf16, f32 = torch.bfloat16, torch.float32
    bc = (batch, tokens, GROUPS, STATE)
    return (torch.empty(batch, tokens, HEADS, HEAD_DIM, dtype=bf16), torch.empty(HEADS, dtype=f32),
            torch.empty(*bc, dtype=bf16), torch.empty(*bc, dtype=bf16), torch.empty(HEADS, dtype=f32),
            torch.empty(batch, tokens, HEADS, dtype=bf16),
            torch.empty(batch, HEADS, HEAD_DIM, STATE, dtype=f32))
