"""Launches taken from a library's host code: its tuner answered, one of
several launches picked, lists of arrays, a launch that fails."""

import json
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from tileperf_dump import arch, capture_launch, dump_config, load_kernel_module
from tileperf_dump.launch import LaunchError
from tileperf_dump.placeholders import library_imports


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text))
    return path


@pytest.fixture
def forget():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


LIBRARY = {
    "tunelib/__init__.py": "import torch\nraise ImportError('the whole library')\n",
    "tunelib/backend/__init__.py": "from .registry import register\n",
    "tunelib/backend/registry.py": "def register(name):\n    return lambda f: f\n",
    "tunelib/ops.py": """\
        import cuda.tile as ct
        import torch
        from cuda.tile.tune import exhaustive_search
        from types import SimpleNamespace
        from tunelib.backend import register


        @ct.kernel
        def copy(x, y, TILE: ct.Constant[int]):
            ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))


        @ct.kernel
        def fill(xs, TILE: ct.Constant[int]):
            ct.store(xs[0], index=(ct.bid(0),), tile=ct.zeros((TILE,), dtype=ct.float32))


        @register("copy")
        def tuned_copy(x, y):
            space = [SimpleNamespace(TILE=t) for t in (128, 256, 512)]
            n = x.shape[0]
            best = exhaustive_search(space, "stream", lambda c: (n // c.TILE,), copy,
                                     lambda c: (x, y, c.TILE)).best.config
            ct.launch("stream", (n // best.TILE,), copy, (x, y, best.TILE))
            ct.launch("stream", (1,), fill, ([y, y], 128))
        """,
}


@pytest.fixture
def library(tmp_path, forget):
    for name, text in LIBRARY.items():
        write(tmp_path / name, text)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def launcher(torch):
    import tunelib.ops
    x = torch.empty(4096, dtype=torch.float32)
    tunelib.ops.tuned_copy(x, torch.empty_like(x))


def test_the_tuner_takes_the_configuration_tune_accepts(library):
    with library_imports(["torch"], ["tunelib"]):
        import tunelib.ops
    imports = (("torch",), ("tunelib",))
    picked = capture_launch(launcher, arch("sm_90"), imports, kernel=tunelib.ops.copy,
                            tune=lambda c: c.TILE == 256)
    assert picked.grid == (16, 1, 1) and picked.constants == {"TILE": 256}
    with pytest.raises(LaunchError, match="tunes over 3 configuration"):
        capture_launch(launcher, arch("sm_90"), imports)
    with pytest.raises(LaunchError, match="accepts none of the 3 configuration"):
        capture_launch(launcher, arch("sm_90"), imports, tune=lambda c: False)


def test_the_last_launch_counts_and_a_list_of_arrays_is_a_list_constraint(library):
    with library_imports(["torch"], ["tunelib"]):
        import tunelib.ops  # noqa: F401 - the backend package's __init__ ran for `register`
    assert "tunelib.backend.registry" in sys.modules
    last = capture_launch(launcher, arch("sm_120"), (("torch",), ("tunelib",)), tune=lambda c: True)
    assert last.kernel._pyfunc.__name__ == "fill"
    params = last.params()
    assert type(params[0]).__name__ == "ListConstraint" and params[1] == 128
    assert last.arrays()[1] == 4096 * 4  # the list's one allocation, once


def test_a_launch_that_fails_is_its_configurations_own_located_error(library, tmp_path):
    gate = write(tmp_path / "gate.py", """\
        from tileperf_dump import Config


        def broken(torch):
            import tunelib.ops
            tunelib.ops.tuned_copy(torch.cumsum(torch.empty(4096), 0), None)


        CONFIGS = {"broken": Config(launch=broken, tune=lambda c: True)}
        """)
    module = load_kernel_module(gate, ["torch"], ["tunelib"])
    dump_config(module, "broken", tmp_path / "out", "13.4", ["sm_90"])
    record = json.loads((tmp_path / "out" / "broken.tileirbc.json").read_text())
    error = record["archs"]["sm_90"]["problem_error"]
    assert (error["file"], error["line"]) == (str(gate), 6)
    assert error["message"].startswith("CONFIGS['broken'].launch for sm_90: StandInError: "
                                       "torch.cumsum() needs real data")
    assert not (tmp_path / "out" / "broken.tileirbc").exists()
