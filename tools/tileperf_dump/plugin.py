"""pytest plugin of the dump step: options naming the kernel file, the
configurations to export and where to put them (load with -p tileperf_dump.plugin)."""

from tileperf_dump.defaults import BYTECODE_VERSION


def pytest_addoption(parser):
    group = parser.getgroup("tileperf", "tileperf dump step")
    group.addoption("--tileperf-source", help="kernel file defining CONFIGS")
    group.addoption("--tileperf-configs", default="",
                    help="comma-separated configuration names (default: all in CONFIGS)")
    group.addoption("--tileperf-out", help="folder for <config>.tileirbc files")
    group.addoption("--tileperf-bytecode-version", default=BYTECODE_VERSION,
                    help="TileIR bytecode version to write (always explicit: cuTile "
                         "otherwise probes tileiras)")
    group.addoption("--tileperf-placeholders", default="",
                    help="comma-separated modules that are placeholder modules while the "
                         "kernel file is imported (torch, triton, ...)")
    group.addoption("--tileperf-bare-packages", default="",
                    help="comma-separated packages imported without running their __init__.py "
                         "(a library's package whose __init__ imports what the kernels do not need)")
    group.addoption("--tileperf-archs", default="",
                    help="comma-separated architectures the configurations are checked for "
                         "(a problem or launch that depends on the architecture is recorded for each)")


def _names(config, option: str) -> list[str]:
    return [m for m in config.getoption(option).split(",") if m]


def placeholders(config) -> list[str]:
    return _names(config, "--tileperf-placeholders")


def bare(config) -> list[str]:
    return _names(config, "--tileperf-bare-packages")


def archs(config) -> list[str]:
    return _names(config, "--tileperf-archs")


def pytest_generate_tests(metafunc):
    if "tileperf_config" not in metafunc.fixturenames:
        return
    names = [n for n in metafunc.config.getoption("--tileperf-configs").split(",") if n]
    if not names:
        from tileperf_dump.loading import load_kernel_module
        module = load_kernel_module(metafunc.config.getoption("--tileperf-source"),
                                    placeholders(metafunc.config), bare(metafunc.config))
        names = sorted(module.CONFIGS)
    metafunc.parametrize("tileperf_config", names)
