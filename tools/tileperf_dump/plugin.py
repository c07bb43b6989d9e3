"""pytest plugin of the dump step: options naming the kernel file, the
configurations to export and where to put them (load with -p tileperf_dump.plugin)."""


def pytest_addoption(parser):
    group = parser.getgroup("tileperf", "tileperf dump step")
    group.addoption("--tileperf-source", help="kernel file defining CONFIGS")
    group.addoption("--tileperf-configs", default="",
                    help="comma-separated configuration names (default: all in CONFIGS)")
    group.addoption("--tileperf-out", help="folder for <config>.tileirbc files")
    group.addoption("--tileperf-bytecode-version", default="13.4",
                    help="TileIR bytecode version to write (always explicit: cuTile "
                         "otherwise probes tileiras)")
    group.addoption("--tileperf-placeholders", default="",
                    help="comma-separated modules that are placeholder modules while the "
                         "kernel file is imported (torch, triton, ...)")


def placeholders(config) -> list[str]:
    return [m for m in config.getoption("--tileperf-placeholders").split(",") if m]


def pytest_generate_tests(metafunc):
    if "tileperf_config" not in metafunc.fixturenames:
        return
    names = [n for n in metafunc.config.getoption("--tileperf-configs").split(",") if n]
    if not names:
        from tileperf_dump import load_kernel_module
        module = load_kernel_module(metafunc.config.getoption("--tileperf-source"),
                                    placeholders(metafunc.config))
        names = sorted(module.CONFIGS)
    metafunc.parametrize("tileperf_config", names)
