"""TileGym's Unsloth cross-entropy kernels (forward: one block per row, and chunked over a large vocabulary; backward), launched by the suite's loss function as its users call it.

``cross_entropy_loss`` takes logits of 2 sequences of 4096 tokens over the
vocabulary: Mistral-7B's 32000 fits one block per row, Llama-3-8B's 128256
takes the chunked kernel. The backward kernel runs from ``loss.backward()``
on the loss it returns, for both vocabularies.
"""
from tilegym.suites.unsloth.cutile import cross_entropy_loss as ce

from tileperf_dump import Config

BATCH, SEQ = 2, 4096


def loss(vocab, backward=False):
    def launch(torch):
        logits = torch.empty(BATCH, SEQ, vocab, dtype=torch.bfloat16, requires_grad=backward)
        # n_items given, as a trainer that counts its tokens passes it (counting needs the labels' values).
        out = ce.cross_entropy_loss(logits, torch.empty(BATCH, SEQ, dtype=torch.int64), n_items=BATCH * SEQ)
        if backward:  # the trainer's loss.backward()
            out.backward()
    return Config(launch=launch)


CONFIGS = {
    "ce_fwd_b2_s4096_v32000": loss(32000),  # Mistral-7B
    "ce_chunked_fwd_b2_s4096_v128256": loss(128256),  # Llama-3-8B
    "ce_bwd_b2_s4096_v32000": loss(32000, backward=True),
    "ce_bwd_b2_s4096_v128256": loss(128256, backward=True),
}
