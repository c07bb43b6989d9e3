"""Launch code runs against torch itself, on the fake GPU
(tileperf_dump.fake_gpu): what a captured launch passes its kernel is what
torch computes for the same code on real tensors (dtype, shape, strides and
the bytes of the allocation each array views), for each kind of op launch
code uses; the device answers come from the architecture table; what needs
data, or an op without a fake implementation, is an error naming the op and
the library's line."""

import json
from pathlib import Path
from textwrap import dedent

import cuda.tile as ct
import pytest
import torch

from tileperf_dump import arch, capture_launch, dump_config, load_kernel_module
from tileperf_dump.archs import rows
from tileperf_dump.fake_gpu import FakeGpuError, fake_gpu


@ct.kernel
def sink(a, b, c, d, e, f, g, h):
    pass


ARRAYS = 8


def launched(build):
    """``build(torch)``'s tensors as a launch on the fake GPU passes them (as
    the launch record keeps them), and as torch computes them on real CPU
    tensors."""
    def launch(torch):
        args = tuple(build(torch))
        args += (torch.empty(1),) * (ARRAYS - len(args))
        ct.launch(torch.cuda.current_stream(), (1,), sink, args)

    captured = capture_launch(launch, arch("sm_90"))
    fake = captured.arrays()[0][:len(build(torch))]
    real = [{"parameter": i, "shape": list(t.shape), "strides": list(t.stride()),
             "dtype": str(t.dtype).removeprefix("torch."), "bytes": t.untyped_storage().nbytes()}
            for i, t in enumerate(build(torch))]
    return fake, real


def promotion(torch):
    x16 = torch.randn(4, 8, dtype=torch.float16)
    w32 = torch.randn(8, dtype=torch.float32)
    i32 = torch.ones(4, 8, dtype=torch.int32)
    return (torch.empty_like(x16 + w32), w32 + x16, x16 * 2.5, i32 + 1.5, i32 // 2,
            torch.ones(3, dtype=torch.int8) + torch.ones(3, dtype=torch.uint8),
            torch.where(x16 > 0, x16, w32), x16.to(torch.bfloat16) + x16)


def masks(torch):
    x = torch.randn(4, 8)
    y = torch.randn(8)
    return x == 0, (x > 0) & (y < 1), x.isnan(), ~(x != y), torch.logical_or(x > 1, x < -1)


def reductions_with_indices(torch):
    x = torch.randn(6, 10, dtype=torch.bfloat16)
    v, i = x.max(1)
    top = torch.topk(x, 3, dim=1)
    s = x.sort(dim=0, descending=True)
    return v, i, top.values, top.indices, s.indices, x.argmax(0), torch.min(x, dim=0, keepdim=True).indices, \
        x.float().logsumexp(1)


def random_constructors(torch):
    return (torch.randint(10, (3,)), torch.randint(0, 9, (5, 2), dtype=torch.int32), torch.rand(3, 4),
            torch.randn_like(torch.empty(2, 3, dtype=torch.float16)), torch.randperm(10),
            torch.randint_like(torch.empty(4, dtype=torch.int16), 7), torch.normal(0.0, 1.0, (2, 2)))


def views_and_copies(torch):
    x = torch.randn(4, 8, dtype=torch.float16)
    return (x.t().reshape(32), x.reshape(2, 16), x.t().contiguous(), x.view(torch.int16), x[:, ::2],
            x.unsqueeze(1).expand(4, 3, 8), x.narrow(1, 2, 4), torch.as_strided(x, (2, 2), (1, 2), 3))


def strides(torch):
    x = torch.randn(2, 3, 4, 5, dtype=torch.float32)
    return (x.permute(3, 1, 0, 2), x.mT, x.transpose(0, 2).flatten(1), torch.empty_strided((4, 8), (16, 1)),
            x[..., 1:], x.movedim(0, -1).contiguous(), x.repeat_interleave(2, dim=1), x.squeeze(0).unsqueeze(-1))


def functions(torch):
    a = torch.randn(3, 4, dtype=torch.bfloat16)
    b = torch.randn(4, 5, dtype=torch.bfloat16)
    return (torch.cat([a, a], 1), torch.stack([a, a]), torch.matmul(a, b), torch.softmax(a.float(), -1),
            torch.nn.functional.pad(a, (3, 0)), torch.nn.functional.silu(a), torch.clamp(a, max=1.0),
            torch.gather(a, 1, torch.zeros(3, 2, dtype=torch.int64)))


@pytest.mark.parametrize("build", [promotion, masks, reductions_with_indices, random_constructors,
                                   views_and_copies, strides, functions])
def test_the_launch_passes_what_torch_computes(build):
    fake, real = launched(build)
    assert fake == real


def test_promotion_gives_the_output_torch_gives():
    """The case a hand-written imitation got wrong: float16 + float32 is float32, either way round."""
    fake, _ = launched(promotion)
    assert [a["dtype"] for a in fake[:2]] == ["float32", "float32"]
    assert fake[0]["bytes"] == 4 * 8 * 4


def test_tensors_without_a_device_are_on_the_gpu_in_a_launch_and_a_cpu_tensor_is_refused():
    def on_cpu(torch):
        ct.launch(torch.cuda.current_stream(), (1,), sink, (torch.empty(4, device="cpu"),) * ARRAYS)

    with pytest.raises(Exception, match="parameter a is a tensor on cpu, not on the GPU"):
        capture_launch(on_cpu, arch("sm_90")).params()


def test_each_architectures_device_answers_from_the_table():
    for name, row in rows().items():
        with fake_gpu(arch(name)):
            props = torch.cuda.get_device_properties(0)
            assert torch.cuda.is_available() and torch.cuda.device_count() == 1
            assert (props.name, props.multi_processor_count, props.total_memory) == \
                (row["part"], row["sms"], row["memory_bytes"])
            assert (props.major, props.minor) == tuple(row["capability"]) == torch.cuda.get_device_capability()
            assert props.shared_memory_per_block_optin == row["shared_bytes_per_block_optin"]
            assert torch.cuda.mem_get_info()[1] == row["memory_bytes"]
            assert torch.cuda.get_arch_list() == [f"sm_{row['capability'][0]}{row['capability'][1]}"]
            with torch.cuda.device(0), torch.cuda.stream(torch.cuda.Stream()):
                event = torch.cuda.Event()
                event.record()
            with pytest.raises(AttributeError, match="archs.json does not give it"):
                props.memory_bus_width  # noqa: B018
            with pytest.raises(FakeGpuError, match="there is no device 1"):
                torch.cuda.set_device(1)
            pool = torch.cuda.MemPool()
            with torch.cuda.use_mem_pool(pool):
                assert torch.empty(8, device="cuda").shape == (8,)  # an allocation in the pool
            assert pool.snapshot() == []
    assert not torch.cuda.is_available()


@pytest.mark.parametrize("code, message", [
    ("x.sum().item()", r"reads the values of a tensor \(aten._local_scalar_dense.default"),
    ("int(x.sum())", r"reads the values of a tensor \(aten._local_scalar_dense.default"),
    ("x.tolist()", r"reads the values of a tensor"),
    ("bool((x > 0).any())", r"reads the values of a tensor"),
    ("x.nonzero()", r"calls aten.nonzero.default, whose output's shape depends on the values of a tensor"),
    ("torch.ops.gatelib.twice(x)", r"calls gatelib.twice.default, which has no fake implementation in torch"),
])
def test_code_that_needs_data_is_an_error_naming_the_op_and_the_line(tmp_path, code, message):
    if not hasattr(torch.ops.gatelib, "twice"):
        lib = torch.library.Library("gatelib", "DEF")
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x * 2, "CPU")
        test_code_that_needs_data_is_an_error_naming_the_op_and_the_line.library = lib
    gate = tmp_path / "reads_gate.py"
    gate.write_text(dedent(f"""\
        import cuda.tile as ct
        import torch
        from tileperf_dump import Config


        @ct.kernel
        def copy(x):
            pass


        def launch(torch):
            x = torch.empty(16)
            {code}
            ct.launch(torch.cuda.current_stream(), (1,), copy, (x,))


        CONFIGS = {{"reads": Config(launch=launch), "fine": Config(launch=lambda torch: ct.launch(
            torch.cuda.current_stream(), (1,), copy, (torch.empty(16),)))}}
        """))
    module = load_kernel_module(gate)
    for name in ("reads", "fine"):
        dump_config(module, name, tmp_path / "out", "13.4", ["sm_90"])
    record = json.loads((tmp_path / "out" / "reads.tileirbc.json").read_text())
    error = record["archs"]["sm_90"]["problem_error"]
    assert (error["file"], error["line"]) == (str(gate), 13)
    assert error["message"].startswith("CONFIGS['reads'].launch for sm_90: FakeGpuError: the launch ")
    import re
    assert re.search(message, error["message"]), error["message"]
    # The file's other configuration exports.
    assert (tmp_path / "out" / "fine.tileirbc").stat().st_size > 0


def test_a_custom_op_runs_its_implementation_not_its_fake(tmp_path):
    """A library's op made with torch.library.custom_op launches its kernel in
    its implementation; under fake tensors torch would run the registered
    fake instead, so the fake GPU runs the implementation."""
    gate = tmp_path / "op_gate.py"
    gate.write_text(dedent("""\
        import cuda.tile as ct
        import torch
        from tileperf_dump import Config


        @ct.kernel
        def scale(x, y, TILE: ct.Constant[int]):
            ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


        @torch.library.custom_op("gatetest::scale", mutates_args=("y",))
        def scale_op(x: torch.Tensor, y: torch.Tensor) -> None:
            ct.launch(torch.cuda.current_stream(), (x.shape[0] // 128,), scale, (x, y, 128))


        @scale_op.register_fake
        def _(x, y):
            return None


        def launch(torch):
            x = torch.empty(4096, dtype=torch.float16)
            scale_op(x, torch.empty_like(x))


        CONFIGS = {"op": Config(launch=launch)}
        """))
    module = load_kernel_module(gate)
    captured = capture_launch(module.CONFIGS["op"].launch, arch("sm_90"), imported_for=module.__tileperf_arch__)
    assert captured.grid == (32, 1, 1) and captured.constants == {"TILE": 128}


def test_torchs_engine_cannot_run_a_backward_on_the_fake_gpu_so_the_graph_is_walked():
    """torch's autograd engine sets up a CUDA context for a cuda tensor's
    backward (pytorch#92627): on the fake GPU, backward() walks the graph
    itself, running an autograd Function's backward with gradients of the
    shapes torch gives."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(), pytest.raises(RuntimeError):
        x = torch.empty(4, device="cuda", requires_grad=True)
        (x * 2).sum().backward()

    calls = []

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.save_for_backward(x)
            ctx.factor = factor
            return x * factor, torch.empty(x.shape[0], dtype=torch.float32)

        @staticmethod
        def backward(ctx, dy, dstats):
            (x,) = ctx.saved_tensors
            calls.append((tuple(x.shape), ctx.factor, tuple(dy.shape), dy.dtype, tuple(dstats.shape),
                          ctx.needs_input_grad))
            return dy * ctx.factor, None

    with fake_gpu(arch("sm_90"), default_device=True):
        x = torch.empty(8, 16, dtype=torch.bfloat16, requires_grad=True)
        y, _ = Scale.apply(x, 2.0)
        (y.float().sum() / 8).backward()
        assert x.grad is not None and x.grad.shape == (8, 16) and x.grad.dtype == torch.bfloat16
    assert calls == [((8, 16), 2.0, (8, 16), torch.bfloat16, (8,), (True, False))]


def test_configure_never_imports_torch_for_a_kernel_file_that_does_not(tmp_path):
    """Registering a kernel file (the manifest step of configure) imports
    torch only where the file's own import does. (Its export does: cuTile's
    compiler imports torch itself when it is installed.)"""
    import subprocess
    import sys
    kernel = tmp_path / "plain.py"
    kernel.write_text(dedent("""\
        import cuda.tile as ct
        from tileperf_dump import Config, array


        @ct.kernel
        def copy(x, TILE: ct.Constant[int]):
            pass


        CONFIGS = {"a": Config(copy, [array(ct.float16, 1), 64])}
        """))
    script = ("import sys; from tileperf_dump.manifest import main; "
              f"main(['--kernel', 'plain', '--work-dir', {str(tmp_path)!r}, '--baseline-dir', {str(tmp_path)!r}, "
              f"'--archs', 'sm_90', {str(kernel)!r}]); print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env={"PYTHONPATH": str(Path(__file__).resolve().parents[2] / "tools")})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "False"
