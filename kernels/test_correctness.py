"""Correctness of every kernel configuration on a CUDA GPU, run with the very
cubins the gate measured.

Each configuration's ``case`` builds inputs on the GPU and the expected output
in higher precision. The kernel is launched through cuTile's own dispatcher
with the configuration's exported signature and the gate's cubin for the GPU's
architecture (``tools/gpu/gate_launch.py``), from the store that
``tools/gpu/prepare_timing.sh --configs`` makes on the gate's machine
(``TILEPERF_GATE_STORE``, see ``tools/gpu/run_correctness.sh``): the inputs must
meet every assumption of the signature, the kernel file must be the one the
store was made from, and the launch must load the store's cubin (the same
SHA-256 as the gate's, checked where cuTile hands it to the driver). Without
PyTorch, a CUDA GPU or a store every case is skipped with the reason; a run in
which every case was skipped ends with exit status 77 (kernels/conftest.py).
"""

import json
import os
import sys
from pathlib import Path

import pytest

from tileperf_dump import load_kernel_module

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools" / "gpu"))
KERNEL_FILES = sorted(p for p in HERE.glob("*.py")
                      if not p.name.startswith(("test_", "conftest", "_")))


def _cases():
    for path in KERNEL_FILES:
        try:
            names = list(load_kernel_module(path).CONFIGS)
        except Exception:  # reported by the test below, without hiding the other kernels
            names = [None]
        for name in names:
            yield pytest.param(path, name, id=f"{path.stem}.{name or 'load'}")


@pytest.fixture(scope="session")
def store():
    folder = os.environ.get("TILEPERF_GATE_STORE")
    if not folder:
        pytest.skip("no store of the gate's cubins (TILEPERF_GATE_STORE): make one with "
                    "tools/gpu/prepare_timing.sh --configs where the gate runs")
    manifest = json.loads((Path(folder) / "manifest.json").read_text())
    rows = {(r["file"], r["config"]): r for r in manifest["rows"] if r.get("kind") == "config"}
    return Path(folder), rows


@pytest.fixture(scope="session")
def torch():
    torch = pytest.importorskip(
        "torch", reason="PyTorch is not installed: correctness tests need it and a CUDA GPU")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible to PyTorch: correctness tests need one")
    return torch


@pytest.fixture(scope="session")
def gate(torch, store):
    import gate_launch
    probe = gate_launch.install_driver_probe()  # before cuTile first reaches the driver
    return gate_launch, probe


def _gate_kernel(gl, folder, row, config, arch):
    spec = row["base"]
    cubin = (folder / spec["cubin"]).read_bytes()
    return gl.GateKernel(config.kernel, signature=config.signature(), cubin=cubin,
                         cubin_sha256=spec["cubin_sha256"], arch=arch)


@pytest.mark.parametrize("path, config_name", list(_cases()))
def test_correct(torch, gate, store, path, config_name):
    import cuda.tile as ct

    gl, probe = gate
    folder, rows = store
    module = load_kernel_module(path)  # raises here if the file cannot be loaded
    config = module.CONFIGS[config_name]
    assert config.case is not None, f"{path.name}: CONFIGS[{config_name!r}] has no correctness case"
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}"
    row = rows.get((path.name, config_name))
    assert row is not None and row.get("arch") == arch and "base" in row, (
        f"the store has no {arch} cubin of {path.name} {config_name}")
    assert gl.sha256(path.read_bytes()) == row["base"]["source_sha256"], (
        f"{path.name} is not the kernel file the store was made from: prepare it again")
    kernel = _gate_kernel(gl, folder, row, config, arch)
    torch.manual_seed(0)
    case = config.case(torch)
    violations = gl.check_args(config.signature(), case.args)
    assert not violations, f"the inputs break the signature's assumptions: {violations}"
    loads_before = len(probe.loads)
    ct.launch(torch.cuda.current_stream(), case.grid, kernel, case.args)
    torch.cuda.synchronize()
    served = [c.get("served_sha256") for c in kernel.compiles]
    assert served == [row["base"]["cubin_sha256"]], f"cuTile was served {served}"
    loads = probe.loads[loads_before:]
    assert [(l.get("sha256"), l.get("result")) for l in loads] == [(row["base"]["cubin_sha256"], 0)], (
        f"the driver was handed {loads}")
    for index, expected in case.expected().items():
        actual = case.args[index]
        torch.testing.assert_close(actual.double(), expected.double().to(actual.device),
                                   rtol=case.rtol, atol=case.atol,
                                   msg=lambda m: f"{path.stem}.{config_name}, argument {index}: {m}")
