"""Correctness of every kernel configuration on a CUDA GPU.

Each configuration's ``case`` builds inputs on the GPU and the expected
output in higher precision; the kernel is launched with cuTile (compiled for
the GPU at hand) and its output compared with ``torch.testing.assert_close``.
Without PyTorch or without a CUDA GPU every test is skipped, with the reason.
"""

from pathlib import Path

import pytest

from tileperf_dump import load_kernel_module

HERE = Path(__file__).resolve().parent
KERNEL_FILES = sorted(p for p in HERE.glob("*.py")
                      if not p.name.startswith(("test_", "conftest", "_")))


def _cases():
    for path in KERNEL_FILES:
        try:
            names = sorted(load_kernel_module(path).CONFIGS)
        except Exception:  # reported by the test below, without hiding the other kernels
            names = [None]
        for name in names:
            yield pytest.param(path, name, id=f"{path.stem}.{name or 'load'}")


@pytest.fixture(scope="session")
def torch():
    torch = pytest.importorskip(
        "torch", reason="PyTorch is not installed: correctness tests need it and a CUDA GPU")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible to PyTorch: correctness tests need one")
    return torch


@pytest.mark.parametrize("path, config_name", list(_cases()))
def test_correct(torch, path, config_name):
    import cuda.tile as ct

    module = load_kernel_module(path)  # raises here if the file cannot be loaded
    config = module.CONFIGS[config_name]
    assert config.case is not None, f"{path.name}: CONFIGS[{config_name!r}] has no correctness case"
    torch.manual_seed(0)
    case = config.case(torch)
    ct.launch(torch.cuda.current_stream(), case.grid, config.kernel, case.args)
    torch.cuda.synchronize()
    for index, expected in case.expected().items():
        actual = case.args[index]
        torch.testing.assert_close(actual.double(), expected.double().to(actual.device),
                                   rtol=case.rtol, atol=case.atol,
                                   msg=lambda m: f"{path.stem}.{config_name}, argument {index}: {m}")
