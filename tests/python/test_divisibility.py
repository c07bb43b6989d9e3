"""array(like=...) states what cuTile's JIT infers from an example array:
checked against cuTile's own inference (tests/python/jit_inference.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cuda.tile as ct
from tileperf_dump import array, jit_assumptions

HERE = Path(__file__).resolve().parent
ALIGNED, UNALIGNED = 0x10000, 0x10008

# dtype, shape, strides in elements (None: row-major contiguous), base address
EXAMPLES = [
    ("float16", [4096, 1000], None, ALIGNED),
    ("float16", [4096, 1024], None, ALIGNED),
    ("float16", [33, 7], None, ALIGNED),
    ("float16", [48, 40], None, ALIGNED),
    ("float16", [1, 8], None, ALIGNED),
    ("float16", [16, 1], None, ALIGNED),
    ("float16", [1000], None, ALIGNED),
    ("float16", [1], None, ALIGNED),
    ("float16", [8, 1, 24], None, ALIGNED),
    ("float16", [2, 12, 1000, 64], None, ALIGNED),
    ("float32", [4096, 1000], None, ALIGNED),
    ("float32", [100, 3], None, ALIGNED),
    ("float64", [4096, 1000], None, ALIGNED),
    ("float64", [7, 5], None, ALIGNED),
    ("int8", [4096, 1000], None, ALIGNED),
    ("int8", [24, 24], None, ALIGNED),
    ("int64", [3, 2], None, ALIGNED),
    ("float16", [4096, 1000], [1, 4096], ALIGNED),   # a transposed view
    ("float16", [4096, 1000], [1024, 1], ALIGNED),   # rows padded to 1024
    ("float16", [4096, 1000], [0, 1], ALIGNED),      # a broadcast row
    ("float16", [4096, 1000], [1001, 1], ALIGNED),   # rows of odd length
    ("float16", [4096, 1000], None, UNALIGNED),      # a view at an offset
    ("float16", [4, 8], [2, 1], ALIGNED),            # rows that overlap
    ("float16", [1, 8], [5, 1], ALIGNED),
    ("float16", [4, 1], [1, 1], ALIGNED),
    ("float16", [3, 4, 8], [31, 8, 1], ALIGNED),
    ("float16", [7, 5], [-5, 1], ALIGNED),            # reversed rows
    ("float16", [0, 8], None, ALIGNED),
    ("float16", [2, 2, 2, 2, 16, 16], None, ALIGNED),  # beyond 5 dimensions: nothing inferred
    ("float32", [2, 1, 2, 2, 2, 32], None, ALIGNED),
]


@pytest.fixture(scope="module")
def inferred():
    result = subprocess.run([sys.executable, str(HERE / "jit_inference.py"), json.dumps(EXAMPLES)],
                            capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert len(lines) == len(EXAMPLES), result.stdout + result.stderr
    return lines


@pytest.mark.parametrize("index", range(len(EXAMPLES)),
                         ids=[f"{d}_{'x'.join(map(str, s))}{'_strided' if st else ''}"
                              f"{'_offset' if a == UNALIGNED else ''}"
                              for d, s, st, a in EXAMPLES])
def test_like_is_what_the_jit_infers(inferred, index):
    dtype, shape, strides, address = EXAMPLES[index]
    constraint = array(getattr(ct, dtype), like=shape, strides=strides,
                       align_bytes=16 if address % 16 == 0 else 1)
    assert repr(constraint) == inferred[index]


def test_dimensions_that_are_not_multiples_of_16():
    fields = jit_assumptions(ct.float16, (4096, 1000))
    assert fields["shape_divisible_by"] == (16, 1)
    assert fields["stride_divisible_by"] == (8, 1)  # 1000 fp16 elements: 2000 bytes
    assert jit_assumptions(ct.float16, (4096, 1001))["stride_divisible_by"] == (1, 1)
    assert jit_assumptions(ct.float16, (3, 1, 64))["shape_constant"] == (None, 1, None)


def test_like_checks_its_arguments():
    assert array(ct.float16, 2, like=(64, 48)) == array(ct.float16, like=(64, 48))
    with pytest.raises(ValueError, match=r"ndim 3 does not match like=\(64, 48\)"):
        array(ct.float16, 3, like=(64, 48))
    with pytest.raises(TypeError, match="like= states the divisibility"):
        array(ct.float16, like=(64, 48), shape_divisible_by=16)
    with pytest.raises(TypeError, match="give ndim, or like="):
        array(ct.float16)
    with pytest.raises(ValueError, match=r"strides \(1,\) do not match shape \(64, 48\)"):
        array(ct.float16, like=(64, 48), strides=(1,))
    assert array(ct.float16, like=(64, 48), alias_groups=("a",)).alias_groups == ("a",)
