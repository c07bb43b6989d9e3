"""TileGym's cuTile ports of Liger's loss kernels (cross-entropy, JSD, KL divergence, TV distance, GRPO and GSPO), launched by the suite's own ops and host functions over real vocabularies.

Forward kernels are launched by the suite's registered ops or their forward
host functions, backward kernels by the host functions the suite's backward
calls. The cross-entropy op counts the targets that are not ignored on the
GPU (``.item()``) before it launches, so the kernel is launched by the
suite's per-chunk launcher, with the op's own block size for the
architecture and every target counted. Where the suite tunes, ``tune=``
takes the first of its candidates, its default with autotuning disabled.
The kernels loop over the vocabulary in chunks: the gate computes those counts.
"""
from tilegym.suites.liger.cutile import cross_entropy, fused_linear_cross_entropy as flce
from tilegym.suites.liger.cutile import grpo_loss, jsd, kl_div, tvd

from tileperf_dump import Config

TOKENS = 4096  # a batch of 2 sequences of 2048


def first(launch, kernel=None):
    # The first of the candidates the suite tunes over: its choice with autotuning disabled.
    return Config(launch=launch, tune=lambda cfg: True, launch_kernel=kernel)


def ce(vocab):
    def launch(torch):
        logits = torch.empty(TOKENS, vocab, dtype=torch.bfloat16)
        target = torch.empty(TOKENS, dtype=torch.int64)
        loss = torch.zeros(TOKENS, dtype=torch.bfloat16)
        dummies = (torch.zeros(1, dtype=torch.float32), torch.zeros(1, dtype=torch.int64),
                   torch.zeros(1, dtype=torch.float32))
        block = cross_entropy._select_block_size(vocab, logits.device)
        # Mean over every token, no class weights, smoothing, z-loss or softcap; gradients in place.
        flce._launch_ce(logits, target, None, loss, None, None, None, dummies, vocab, block,
                        1.0 / TOKENS, float(TOKENS), 0.0, -100, 0.0, 0.0, None,
                        True, True, False, False, False, False, False)
    return first(launch)


def two_dists(op, vocab, dtype="float32", **kwargs):
    def launch(torch):
        p, q = (torch.empty(TOKENS, vocab, dtype=getattr(torch, dtype)) for _ in range(2))
        op(p, q, **kwargs)
    return first(launch)


def kl_bwd(vocab):
    def launch(torch):
        kl_div._kldiv_backward_ct(torch.empty(TOKENS, vocab, dtype=torch.float32), 1.0 / TOKENS, False)
    return first(launch)


def grpo(batch, completion, vocab, backward=False):
    # A group of completions of a policy with the vocabulary given; per-token importance sampling.
    def launch(torch):
        logits = torch.empty(batch, completion + 1, vocab, dtype=torch.bfloat16)
        ids = torch.empty(batch, completion, dtype=torch.int64)
        old_logp = torch.empty(batch, completion, dtype=torch.float32)
        advantages = torch.empty(batch, dtype=torch.float32)
        mask = torch.empty(batch, completion, dtype=torch.int32)
        grpo_type = grpo_loss._str_to_loss_type["grpo"]
        _, lse, _, _ = grpo_loss._grpo_loss_forward_ct(
            logits, old_logp, None, ids, advantages, mask, 0.9, 0.0, 0.2, 0.2, grpo_type,
            1.0, 1.05, 0.0, 0, None, completion, None)
        if backward:
            grpo_loss._grpo_loss_backward_ct(
                torch.empty(batch, completion, dtype=torch.float32), logits, old_logp, None, ids,
                advantages, mask, lse, 0.9, 0.0, 0.2, 0.2, False, grpo_type, 1.0, 1.05, 0.0, 0,
                None, completion, None)
    return first(launch, grpo_loss._grpo_loss_bwd_ct if backward else grpo_loss._grpo_loss_fwd_ct)


def gspo(batch, completion, vocab, backward=False):
    # Sequence-level importance sampling (GSPO): the weights per sequence are computed by torch.
    def launch(torch):
        logits = torch.empty(batch, completion + 1, vocab, dtype=torch.bfloat16)
        ids = torch.empty(batch, completion, dtype=torch.int64)
        old_logp = torch.empty(batch, completion, dtype=torch.float32)
        advantages = torch.empty(batch, dtype=torch.float32)
        mask = torch.empty(batch, completion, dtype=torch.int32)
        _, lse, _, _, coef_1, seq_lens = grpo_loss._grpo_loss_forward_seq_ct(
            logits, old_logp, None, ids, advantages, mask, 0.9, 0.0, 0.2, 0.2, 0.0, 0, None, completion)
        if backward:
            grpo_loss._grpo_loss_backward_seq_ct(
                torch.empty(batch, completion, dtype=torch.float32), logits, None, ids, advantages, mask,
                lse, coef_1, seq_lens, 0.9, 0.0, 0.2, 0.2, 0.0, 0, False, None)
    return first(launch, grpo_loss._grpo_loss_bwd_seq_ct if backward else grpo_loss._grpo_loss_fwd_seq_ct)


CONFIGS = {
    # Llama-3-8B's vocabulary 128256.
    "cross_entropy_4096x128256": ce(128256),
    # Distillation losses between two models of Llama-3's vocabulary (log-probabilities).
    "jsd_4096x128256": two_dists(jsd.jsd, 128256),
    "kl_div_none_4096x128256": two_dists(kl_div.kl_div, 128256, reduction="none"),
    "kl_div_batchmean_4096x128256": two_dists(kl_div.kl_div, 128256),
    "kl_div_bwd_4096x128256": kl_bwd(128256),
    # TV distance: Mistral-7B-v0.3's vocabulary 32768 divides into whole blocks, Llama-3's does
    # not, and GPT-2's 50257 gives rows that are not 16-byte aligned in bf16 (the gather kernel).
    "tvd_aligned_4096x32768": two_dists(tvd.tvd, 32768),
    "tvd_4096x128256": two_dists(tvd.tvd, 128256),
    "tvd_gather_4096x50257": two_dists(tvd.tvd, 50257, dtype="bfloat16"),
    # GRPO over 8 completions of 1024 tokens of Qwen2.5-7B (vocabulary 152064).
    "grpo_loss_fwd_b8_l1024_v152064": grpo(8, 1024, 152064),
    "grpo_loss_bwd_b8_l1024_v152064": grpo(8, 1024, 152064, backward=True),
    "gspo_loss_fwd_b8_l1024_v152064": gspo(8, 1024, 152064),
    "gspo_loss_bwd_b8_l1024_v152064": gspo(8, 1024, 152064, backward=True),
}
