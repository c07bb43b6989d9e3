"""What minilib's kernels share: dtype mapping, sizes, the stream."""

import cuda.tile as ct
import torch

CUTILE_DTYPES = {torch.float16: ct.float16, torch.bfloat16: ct.bfloat16, torch.float32: ct.float32}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def stream() -> "torch.cuda.Stream":
    return torch.cuda.current_stream()
