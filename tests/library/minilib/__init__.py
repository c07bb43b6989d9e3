"""minilib: a small cuTile kernel library, written the way kernel libraries
are (torch at module level, custom ops, hints picked at launch time), to test
that tileperf gates such a library without a GPU."""

import torch

from minilib.kernels.gemm import gemm
from minilib.kernels.rms_norm import rms_norm

__all__ = ["gemm", "rms_norm"]
__version__ = "0.1"
