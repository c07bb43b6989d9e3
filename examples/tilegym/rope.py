"""TileGym's cuTile RoPE kernel (in place on Q and K), launched by TileGym's public op ``apply_rope_base``.

Stand-in tensors of Llama-3-8B's attention (32 query heads, 8 key/value
heads of 128, a 4096-token prefill); ``tune=`` takes TileGym's occupancy
with autotuning disabled (9).
"""
from tilegym.ops.cutile.rope import apply_rope_base

from tileperf_dump import Config


def rope(batch, seq, q_heads, kv_heads, head_dim=128):
    def launch(torch):
        cos = torch.empty(1, seq, head_dim, dtype=torch.bfloat16)
        apply_rope_base(torch.empty(batch, q_heads, seq, head_dim, dtype=torch.bfloat16),
                        torch.empty(batch, kv_heads, seq, head_dim, dtype=torch.bfloat16),
                        cos, torch.empty_like(cos))
    return Config(launch=launch, tune=lambda cfg: cfg.occupancy == 9)


CONFIGS = {
    "rope_llama3_8b_b1_s4096": rope(1, 4096, 32, 8),
}
