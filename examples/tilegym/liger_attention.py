"""TileGym's cuTile ports of Liger's attention kernels (fused neighborhood attention, multi-token attention's masks), launched by the suite's own op and host functions.

Neighborhood attention's forward is the suite's registered op, tuned as the
suite does with autotuning disabled (the first of its candidates); its three
backward kernels run from ``backward()`` on the op's output. Multi-token
attention's mask kernels are launched by the host functions its op calls
between its convolutions, each on the scores of one head.
"""
from tilegym.suites.liger.cutile import fused_neighborhood_attention as fna
from tilegym.suites.liger.cutile import multi_token_attention as mta

from tileperf_dump import Config


def neighborhood(batch, heads, seq, head_dim, window, backward=None):
    def launch(torch):
        q, k, v = (torch.empty(batch, heads, seq, head_dim, dtype=torch.bfloat16, requires_grad=bool(backward))
                   for _ in range(3))
        o = fna.fused_neighborhood_attention(q, k, v, kernel_size=window)
        if backward:  # the backward of the op's autograd Function, as a user's o.backward() reaches it
            o.backward(torch.empty_like(o))
    return Config(launch=launch, tune=lambda cfg: True, launch_kernel=backward)


def mask(host, seq, inputs=1):
    def launch(torch):
        host(*(torch.empty(seq, seq, dtype=torch.float32) for _ in range(inputs)))
    return Config(launch=launch)


CONFIGS = {
    # A 1D neighborhood-attention layer of ViT-B width (12 heads of 64) over 4096 tokens, window 7.
    "fna_fwd_b2_h12_s4096_d64_k7": neighborhood(2, 12, 4096, 64, 7),
    # Its backward (three kernels, on the forward's tile sizes).
    "fna_bwd_preprocess_b2_h12_s4096_d64_k7": neighborhood(2, 12, 4096, 64, 7, fna._fna_bwd_preprocess_kernel),
    "fna_bwd_dkdv_b2_h12_s4096_d64_k7": neighborhood(2, 12, 4096, 64, 7, fna._fna_bwd_dkdv_kernel),
    "fna_bwd_dq_b2_h12_s4096_d64_k7": neighborhood(2, 12, 4096, 64, 7, fna._fna_bwd_dq_kernel),
    # Multi-token attention's causal masks over the 2048x2048 scores of one head (fp32, as the
    # op's sparse variant requires), and the fused softmax-and-mask backward.
    "mta_mask_inf_fwd_s2048": mask(mta._mask_inf_forward_ct, 2048),
    "mta_mask_zero_fwd_s2048": mask(mta._mask_zero_forward_ct, 2048),
    "mta_mask_bwd_s2048": mask(mta._mask_backward_ct, 2048),
    "mta_softmax_zeromask_bwd_s2048": mask(mta._fused_softmax_zeromask_bwd_ct_launch, 2048, inputs=2),
}
