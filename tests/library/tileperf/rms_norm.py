"""minilib's RMSNorm at hidden sizes that are not multiples of 16, with the
hints its launch picks for them."""

import cuda.tile as ct
from cuda.tile.compilation import ScalarConstraint
from tileperf_dump import Config, Problem, array

from minilib.kernels.rms_norm import hints, rms_norm_kernel
from minilib.utils import next_power_of_2


def _config(dtype, rows, hidden):
    return Config(
        rms_norm_kernel.replace_hints(**hints(hidden)),  # as minilib.rms_norm launches it
        dict(x=array(dtype, like=(rows, hidden)), w=array(dtype, like=(hidden,)),
             y=array(dtype, like=(rows, hidden)), eps=ScalarConstraint(ct.float32),
             TILE=next_power_of_2(hidden)),
        problem=Problem(grid=rows, sizes=dict(rows=rows, hidden=hidden)))


CONFIGS = {
    "f16_4096x1000": _config(ct.float16, 4096, 1000),
    "bf16_333x3000": _config(ct.bfloat16, 333, 3000),
}
