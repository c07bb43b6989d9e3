"""The dump step: exports each requested configuration of one kernel file to
TileIR bytecode, ahead of time, with no GPU and no CUDA driver.

    python -m pytest -p tileperf_dump.plugin tools/tileperf_dump/dump_driver.py \
        --tileperf-source kernels/softmax.py --tileperf-configs f16_4096 \
        --tileperf-out build/tileperf/softmax [--tileperf-placeholders torch] \
        [--tileperf-bare-packages mylib] [--tileperf-archs sm_120,sm_90]
"""

import pytest

from tileperf_dump.export import ConfigError, dump_config, export_per_arch
from tileperf_dump.loading import load_kernel_module
from tileperf_dump.placeholders import PlaceholderError
from tileperf_dump.plugin import archs, bare, placeholders


@pytest.fixture(scope="session")
def kernel_module(pytestconfig):
    source = pytestconfig.getoption("--tileperf-source")
    if not source or not pytestconfig.getoption("--tileperf-out"):
        pytest.fail("--tileperf-source and --tileperf-out are required", pytrace=False)
    return load_kernel_module(source, placeholders(pytestconfig), bare(pytestconfig))


@pytest.fixture(scope="session")
def per_arch(kernel_module, pytestconfig, request):
    """The exports of every requested configuration that depends on the
    architecture, one process per architecture, computed once for all."""
    names = [n for n in pytestconfig.getoption("--tileperf-configs").split(",") if n] \
        or sorted(kernel_module.CONFIGS)
    names = [n for n in names if n in kernel_module.CONFIGS
             and kernel_module.CONFIGS[n].depends_on_arch]
    if not names or not archs(pytestconfig):
        return {}
    return export_per_arch(kernel_module, names, archs(pytestconfig),
                           pytestconfig.getoption("--tileperf-bytecode-version"))


def test_dump(tileperf_config, kernel_module, per_arch, pytestconfig):
    try:
        path = dump_config(kernel_module, tileperf_config,
                           pytestconfig.getoption("--tileperf-out"),
                           pytestconfig.getoption("--tileperf-bytecode-version"),
                           archs(pytestconfig), per_arch)
    except (KeyError, ConfigError, PlaceholderError) as e:
        pytest.fail(e.args[0], pytrace=False)
    # A configuration whose launch failed has a record that says why, and no bytecode.
    assert path.stat().st_size > 0 if path.exists() else path.with_name(path.name + ".json").exists()
