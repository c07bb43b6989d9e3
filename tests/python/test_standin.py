"""The stand-in for torch (tileperf_dump.standin) and the launch record the
dump step makes with it: shapes, strides, dtypes and bytes without data."""

import importlib
import sys
from pathlib import Path

import pytest

from tileperf_dump import Problem, launch_record
from tileperf_dump.standin import StandInError, StandInTorch, launch_arrays

TOP = Path(__file__).resolve().parents[2]


def test_tensors_know_shape_strides_dtype_and_bytes():
    torch = StandInTorch()
    x = (2 * torch.randn(8, 16, device="cuda") + 0.5).to(torch.float16)
    assert x.shape == (8, 16) and x.stride() == (16, 1) and x.dtype.name == "float16"
    assert x.nbytes == 8 * 16 * 2
    t = x.t()
    assert t.shape == (16, 8) and t.stride() == (1, 16) and not t.is_contiguous()
    assert x[:, :4].shape == (8, 4) and x[..., 4:].stride() == (16, 1)
    assert torch.empty_like(x).dtype.name == "float16"
    assert (x + torch.randn(16)).shape == (8, 16)  # broadcast
    assert torch.randint(0, 9, (5,), dtype=torch.int32).dtype.itemsize == 4
    assert torch.cuda.get_device_properties(0).multi_processor_count == 132
    assert StandInTorch(multiprocessors=188).cuda.get_device_properties(0).multi_processor_count == 188


def test_new_tensors_and_unsqueeze_keep_dtype_and_shape():
    torch = StandInTorch()
    x = torch.empty(8, 16, dtype=torch.bfloat16)
    assert x.new_empty(1).shape == (1,) and x.new_empty(1).dtype.name == "bfloat16"
    assert x.new_zeros((4, 2), dtype=torch.float32).dtype.name == "float32"
    assert x.unsqueeze(0).shape == (1, 8, 16) and x.unsqueeze(-1).shape == (8, 16, 1)
    assert x.t().unsqueeze(1).stride() == (1, 128, 16)
    assert torch.sort(x, dim=-1, descending=True).values.shape == (8, 16)
    assert x.sort().indices.dtype.name == "int64"
    x[:, -1] = 0  # assigning to a part keeps nothing
    mask = (x < 1.0) & (torch.empty(16) > 0)
    assert mask.shape == (8, 16) and mask.dtype.name == "bool"
    with pytest.raises(StandInError, match="truth value of a mask"):
        assert x.max() < 16
    assert torch.exp(x.clamp(min=1.0)).dtype.name == "bfloat16" and torch.clamp(x, max=2.0).shape == (8, 16)
    assert torch.gather(x, -1, torch.empty(8, 1, dtype=torch.int64)).shape == (8, 1)
    assert not x.is_complex() and x.is_floating_point() and torch.is_complex(torch.empty(2, dtype=torch.complex64))


def test_launch_arrays_count_each_allocation_once():
    torch = StandInTorch()
    a = torch.empty(1024, dtype=torch.float32)
    b = torch.empty(512, dtype=torch.float16)
    arrays, floor = launch_arrays((a, a[:256], b, 7, "x"))
    assert [x["parameter"] for x in arrays] == [0, 1, 2]
    assert arrays[1]["bytes"] == 4096  # a view: the bytes of what it views
    assert floor == 4096 + 1024  # a and its view once, then b


def test_what_needs_data_is_refused_by_name():
    torch = StandInTorch()
    with pytest.raises(StandInError, match=r"torch\.matmul\(\) needs real data"):
        torch.matmul(torch.empty(2, 2), torch.empty(2, 2))
    with pytest.raises(StandInError, match="do not broadcast"):
        torch.empty(3, 4) + torch.empty(5)


@pytest.mark.parametrize("kernel", ["vector_add", "softmax", "layer_norm", "matmul", "persistent_matmul",
                                    "attention", "rope", "transpose", "silu_and_mul", "gelu", "rms_norm",
                                    "batched_matmul"])
def test_every_shipped_configuration_records_its_launch(kernel):
    sys.path.insert(0, str(TOP / "kernels"))
    try:
        module = importlib.import_module(kernel)
    finally:
        sys.path.remove(str(TOP / "kernels"))
    for name, config in module.CONFIGS.items():
        record = launch_record(config, name)
        assert "launch_error" not in record, record
        assert record["bytes"] > 0
        assert list(record["case_grid"]) == list(config.problem.grid_dims)


def test_a_case_the_stand_in_cannot_run_is_recorded_and_a_declared_floor_wins():
    class Config:
        def case(self, torch, **sizes):
            return torch.linalg.svd(torch.empty(4, 4))
        problem = Problem(grid=1)
    record = launch_record(Config(), "c")
    assert "torch.linalg.svd() needs real data" in record["launch_error"]

    class Declared(Config):
        problem = Problem(grid=1, bytes=4096)
    declared = launch_record(Declared(), "c")
    assert declared["bytes"] == 4096 and "launch_error" not in declared
    # The kernel's arguments were not recorded, and the record says why.
    assert "torch.linalg.svd() needs real data" in declared["args_error"]


def test_views_that_launch_code_takes():
    torch = StandInTorch()
    x = torch.empty(1, 2048, 128, dtype=torch.bfloat16)
    assert x.squeeze(0).shape == (2048, 128) and x.squeeze(0).stride() == (128, 1)
    assert x.squeeze().shape == (2048, 128) and x.squeeze(1).shape == (1, 2048, 128)
    y = x.squeeze(0).unsqueeze(1)
    assert y.shape == (2048, 1, 128) and y.stride() == (128, 128, 1)
    assert x.flatten(0, 1).shape == (2048, 128)
    e = torch.empty(4, 1, dtype=torch.float32).expand(4, 8)
    assert e.shape == (4, 8) and e.stride() == (1, 0) and e.storage_elements == 4
    assert x.new_empty((3, 4)).shape == (3, 4) and x.new_zeros(5).dtype == torch.bfloat16
    assert x.new_empty(2, 3, 4, dtype=torch.float32).shape == (2, 3, 4)  # sizes as arguments
    s = torch.empty_strided((4, 8), (16, 1), dtype=torch.float16)
    assert s.stride() == (16, 1) and s.storage_elements == 3 * 16 + 8
    n = torch.empty(64, 24, dtype=torch.float32).narrow(1, 8, 16)
    assert n.shape == (64, 16) and n.stride() == (24, 1)
    r = torch.empty(1, 8, 4096, 128, dtype=torch.float16).repeat_interleave(4, dim=1)
    assert r.shape == (1, 32, 4096, 128) and r.is_contiguous()


def test_padding_gives_the_padded_shape():
    torch = StandInTorch()
    x = torch.empty(1, 2048, 125, dtype=torch.bfloat16)
    assert torch.nn.functional.pad(x, (3, 0)).shape == (1, 2048, 128)
    assert torch.nn.functional.pad(x, (0, 0, 1, 1)).shape == (1, 2050, 125)


def test_reductions_and_in_place_fills_after_a_launch():
    torch = StandInTorch()
    lse = torch.empty(8192, 32, dtype=torch.float32)
    assert torch.logsumexp(lse, dim=1).shape == (8192,) and lse.logsumexp(1, keepdim=True).shape == (8192, 1)
    losses = torch.empty(8192, dtype=torch.float32)
    assert losses.masked_fill_(torch.empty(8192, dtype=torch.bool), 0) is losses


def test_backward_runs_the_functions_backward_with_its_context():
    from tileperf_dump.torch_surface import Function
    torch = StandInTorch()
    calls = []

    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.save_for_backward(x)
            ctx.factor = factor
            return torch.empty_like(x), torch.empty(x.shape[0], dtype=torch.float32)

        @staticmethod
        def backward(ctx, dy, dstats):
            calls.append((ctx.saved_tensors[0].shape, ctx.factor, dy.shape, dstats.shape, ctx.needs_input_grad))
            return dy, None

    x = torch.empty(8, 16, dtype=torch.bfloat16, requires_grad=True)
    y, stats = Scale.apply(x, 2.0)
    y.backward(torch.empty_like(y))
    assert calls == [((8, 16), 2.0, (8, 16), (8,), (True, False))]
    with pytest.raises(StandInError, match="not made by an autograd Function's forward"):
        Scale.apply(torch.empty(8, 16), 2.0)[0].backward()

    losses = Scale.apply(x, 2.0)[0]
    calls.clear()
    (losses.sum() / 8).backward()  # a loss reduced from the Function's output reaches its backward
    assert calls == [((8, 16), 2.0, (8, 16), (8,), (True, False))]

    calls.clear()  # a view of an input that requires grad requires grad too
    Scale.apply(torch.empty(2, 4, 16, requires_grad=True).view(8, 16), 2.0)[0].backward()
    assert len(calls) == 1 and not x.view(128).detach().requires_grad


def test_grad_is_enabled_as_outside_no_grad():
    # Launch code takes its autograd path on "grad enabled and an input requires grad".
    assert StandInTorch().is_grad_enabled() is True
