"""TileGym's cuTile gated delta rule kernels (Qwen3-Next's linear attention: recurrent decode, chunked prefill), launched by TileGym's public ops.

Each configuration calls ``recurrent_gated_delta_rule`` or
``chunk_gated_delta_rule`` (autograd Functions' forwards) with fake
tensors of one Qwen3-Next-80B-A3B linear-attention layer (16 query/key heads,
32 value heads, head dims 128). The recurrent op tunes over its kernels and
tiles: ``tune=`` takes the first candidate of each search (the standard
kernel; with ``persistent=True``, the op's own keyword, the persistent one);
its streaming decode kernel is what the op launches with autotuning
disabled (``TILEGYM_DISABLE_AUTOTUNE=1``, TileGym's public switch).
"""
import contextlib
import os

from tilegym.ops.cutile import chunk_gated_delta_rule, recurrent_gated_delta_rule

from tileperf_dump import Config

QK_HEADS, V_HEADS, DIM = 16, 32, 128


@contextlib.contextmanager
def autotune_disabled():
    before = os.environ.get("TILEGYM_DISABLE_AUTOTUNE")
    os.environ["TILEGYM_DISABLE_AUTOTUNE"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["TILEGYM_DISABLE_AUTOTUNE"]
        else:
            os.environ["TILEGYM_DISABLE_AUTOTUNE"] = before


def recurrent(tuned=True, **options):
    """One decode step of 64 sequences, the state read and written back."""
    def launch(torch):
        bf16 = torch.bfloat16
        qk = torch.empty(64, 1, QK_HEADS, DIM, dtype=bf16)
        gate = torch.empty(64, 1, V_HEADS, dtype=torch.float32)
        state = torch.empty(64, V_HEADS, DIM, DIM, dtype=torch.float32)
        with contextlib.nullcontext() if tuned else autotune_disabled():
            recurrent_gated_delta_rule.recurrent_gated_delta_rule(
                qk, torch.empty_like(qk), torch.empty(64, 1, V_HEADS, DIM, dtype=bf16), gate,
                torch.empty_like(gate), initial_state=state, output_final_state=True,
                use_qk_l2norm_in_kernel=True, **options)
    return Config(launch=launch, tune=(lambda cfg: True) if tuned else None)


def chunked(kernel):
    """A 4096-token prompt (query and key heads repeated to the 32 value heads, as Qwen3-Next calls it)."""
    def launch(torch):
        bf16 = torch.bfloat16
        q = torch.empty(1, 4096, V_HEADS, DIM, dtype=bf16)
        gate = torch.empty(1, 4096, V_HEADS, dtype=torch.float32)
        chunk_gated_delta_rule.chunk_gated_delta_rule(
            q, torch.empty_like(q), torch.empty_like(q), gate, torch.empty_like(gate), chunk_size=64,
            output_final_state=True, use_qk_l2norm_in_kernel=True)
    return Config(launch=launch, launch_kernel=kernel)


CONFIGS = {
    "recurrent_qwen3_next_decode_b64": recurrent(),
    "recurrent_persistent_qwen3_next_decode_b64": recurrent(persistent=True),
    "recurrent_vstream_qwen3_next_decode_b64": recurrent(tuned=False),
    "chunk_inter_qwen3_next_t4096": chunked(chunk_gated_delta_rule._chunk_inter_recurrence_kernel),
}
