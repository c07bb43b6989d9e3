"""A kernel library gated as it is: bare packages, classes derived from
placeholders, trip counts named by function, problems per architecture and
launches taken from the library's own host code on the fake GPU (its tuner
answered, one of several launches picked, lists of arrays, a launch that
fails)."""

import json
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from tileperf_dump import (Config, Problem, arch, capture_launch, dump_config, kernel_hints,
                           load_kernel_module)
from tileperf_dump.launch import LaunchError
from tileperf_dump.loading import reload_for
from tileperf_dump.placeholders import PlaceholderError, library_imports

TOP = Path(__file__).resolve().parents[2]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text))
    return path


@pytest.fixture
def forget():
    """Forgets the modules a test imported, so that the next test imports its own."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


# A library whose package __init__ imports torch, compares its version and
# imports every op, as FlashInfer's and TileGym's do.
LIBRARY = {
    "biglib/__init__.py": """\
        import torch
        if torch.__version__ < "2.4":
            raise ImportError("needs torch 2.4")
        from .ops import everything
        """,
    "biglib/ops/__init__.py": "from .everything import *\n",
    "biglib/ops/everything.py": "import numpy_that_is_not_here\n",
    "biglib/ops/kernels/__init__.py": "raise RuntimeError('never run')\n",
    "biglib/ops/kernels/scale.py": """\
        import cuda.tile as ct
        import torch
        from biglib.ops.kernels.helpers import rows


        @ct.kernel
        def scale(x, y, N: ct.Constant[int], TILE: ct.Constant[int], GRID: ct.Constant[int]):
            for i in range(ct.bid(0), rows(N, TILE), GRID):
                ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)) * 2)


        class _Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x


        scale_op = _Scale.apply


        def launch_scale(x, y, tile=256):
            sms = torch.cuda.get_device_properties(x.device).multi_processor_count
            n = x.shape[0]
            grid = min(sms * 2, rows(n, tile))
            kernel = scale.replace_hints(occupancy=2) if n > 4096 else scale
            ct.launch(torch.cuda.current_stream(), (grid,), kernel, (x, y, n, tile, grid))
        """,
    "biglib/ops/kernels/helpers.py": """\
        def rows(n, tile):
            return (n + tile - 1) // tile
        """,
}

CONFIG = """\
    import cuda.tile as ct
    from tileperf_dump import Config, Problem, array, cdiv
    from biglib.ops.kernels.scale import launch_scale, scale


    def run(n):
        def launch(torch):
            x = torch.empty(n, dtype=torch.float16)
            launch_scale(x, torch.empty_like(x))
        return launch


    def trips(t):
        c = t.launch.constants
        return Problem(trips={"scale.i": cdiv(cdiv(c["N"], c["TILE"]), c["GRID"])})


    CONFIGS = {
        "launched": Config(launch=run(1 << 20), problem=trips),
        "per_arch": Config(scale, [array(ct.float16, 1), array(ct.float16, 1), 4096, 256, 264],
                           problem=lambda t: Problem(grid=t.arch.sms * 2, trips={"i": 1})),
        "stale": Config(scale, [array(ct.float16, 1), array(ct.float16, 1), 4096, 256, 264],
                        problem=Problem(grid=16, trips={"scale.k": 4})),
    }
    """


@pytest.fixture
def library(tmp_path, forget):
    for name, text in LIBRARY.items():
        write(tmp_path / name, text)
    write(tmp_path / "gate" / "scale_gate.py", CONFIG)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def load(library):
    return load_kernel_module(library / "gate" / "scale_gate.py", [], ["biglib"])


def test_a_bare_package_imports_a_kernel_module_without_its_init_chain(library):
    module = load(library)
    kernels = sys.modules["biglib.ops.kernels.scale"]
    assert "biglib.ops.everything" not in sys.modules
    assert kernels.scale_op.__self__ is kernels._Scale  # torch.autograd.Function.apply, as torch has it
    with pytest.raises(AttributeError, match="bare package here"):
        sys.modules["biglib"].everything  # noqa: B018 - what its __init__ would import
    assert set(module.CONFIGS) == {"launched", "per_arch", "stale"}


def test_without_bare_packages_the_init_chain_stops_the_import(library):
    """torch's version compares (the chain goes past `torch.__version__ < "2.4"`),
    and the chain then stops at the module that is not installed."""
    with pytest.raises(ModuleNotFoundError, match="numpy_that_is_not_here"):
        load_kernel_module(library / "gate" / "scale_gate.py")


def test_torch_is_never_a_placeholder(library):
    with pytest.raises(ValueError, match="torch is not a placeholder module: the dump step runs launch "
                                         r"code against torch itself \(remove it from PLACEHOLDER_MODULES\)"):
        load_kernel_module(library / "gate" / "scale_gate.py", ["torch"], ["biglib"])


def test_a_class_derived_from_a_placeholder_behaves_like_it():
    with library_imports(["gpulib"]):
        import gpulib

        class Op(gpulib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x + 1

        class Net(gpulib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = 2

    assert Op.forward(None, 1) == 2
    assert "Op.apply" in repr(Op.apply) and "Op.apply(...)" in repr(Op.apply(3))
    assert Net().scale == 2 and "Net.register_buffer" in repr(Net().register_buffer)


def test_the_manifest_names_the_line_and_the_placeholder_behind_an_import_error(tmp_path):
    write(tmp_path / "lib" / "ops.py", """\
        import re
        import gpulib
        PATTERN = re.compile(gpulib.ops.name)
        """)
    kernel = write(tmp_path / "gate.py", "import ops\n")
    result = subprocess.run(
        [sys.executable, "-m", "tileperf_dump.manifest", "--placeholder", "gpulib", "--kernel", "gate",
         "--work-dir", str(tmp_path / "work"), "--baseline-dir", str(tmp_path), "--archs", "sm_90",
         str(kernel)],
        capture_output=True, text=True, env={"PYTHONPATH": f"{TOP / 'tools'}:{tmp_path / 'lib'}"})
    assert result.returncode == 2
    assert f"(raised at {tmp_path / 'lib' / 'ops.py'}:3); a placeholder is the likely cause: " \
           f"gpulib.ops.name (a placeholder: the module 'gpulib' is not installed here)" in result.stderr


def test_the_launch_is_captured_per_architecture(library):
    module = load(library)
    for name, sms in (("sm_90", 132), ("sm_100", 148), ("sm_120", 188)):
        module = reload_for(module, arch(name))
        captured = capture_launch(module.CONFIGS["launched"].launch, arch(name),
                                  module.__tileperf_imports__, imported_for=module.__tileperf_arch__)
        assert captured.grid == (sms * 2, 1, 1)
        assert captured.constants == {"N": 1 << 20, "TILE": 256, "GRID": sms * 2}
        assert captured.hints["occupancy"] == 2 == kernel_hints(captured.kernel)["occupancy"]
        assert captured.arrays()[1] == 2 * (1 << 20) * 2


def test_the_record_holds_each_architectures_launch_and_bytecode(library, tmp_path):
    module = load(library)
    dump_config(module, "launched", tmp_path / "out", "13.4", ["sm_120", "sm_90"])
    record = json.loads((tmp_path / "out" / "launched.tileirbc.json").read_text())
    sm_90 = record["archs"]["sm_90"]
    assert record["problem"]["grid"] == [376, 1, 1] and sm_90["problem"]["grid"] == [264, 1, 1]
    assert sm_90["signature"]["parameters[4].value"] == "264"
    assert record["signature"]["hints.occupancy"] == "2"
    assert sm_90["problem"]["trips"][0]["trips"] == 16  # 4096 tiles over 264 blocks
    assert sm_90["bytecode"] == "launched.sm_90.tileirbc"
    assert (tmp_path / "out" / "launched.sm_90.tileirbc").read_bytes() != \
           (tmp_path / "out" / "launched.tileirbc").read_bytes()


def test_a_problem_of_the_architecture_has_its_sm_count(library, tmp_path):
    module = load(library)
    dump_config(module, "per_arch", tmp_path / "out", "13.4", ["sm_120", "sm_100", "sm_90"])
    record = json.loads((tmp_path / "out" / "per_arch.tileirbc.json").read_text())
    assert {a: e["problem"]["blocks"] for a, e in record["archs"].items()} == \
        {"sm_120": 376, "sm_100": 296, "sm_90": 264}
    assert not any("bytecode" in e for e in record["archs"].values())
    with pytest.raises(ValueError, match="needs the architectures"):
        dump_config(module, "per_arch", tmp_path / "again", "13.4")


def test_a_stale_trips_key_is_the_configurations_own_located_error(library, tmp_path):
    module = load(library)
    dump_config(module, "stale", tmp_path / "out", "13.4")
    record = json.loads((tmp_path / "out" / "stale.tileirbc.json").read_text())
    error = record["problem_error"]
    assert (error["file"], error["line"]) == (str(library / "gate" / "scale_gate.py"), 23)
    assert error["message"] == ("CONFIGS['stale'].problem.trips: trips key 'scale.k': no 'for k "
                                "in' loop in scale() (loops: scale.i)")
    assert "problem" not in record and (tmp_path / "out" / "stale.tileirbc").stat().st_size > 0


def test_trips_keys_name_loops_of_the_kernel_and_its_helpers(tmp_path, forget):
    write(tmp_path / "k.py", """\
        import cuda.tile as ct
        from tileperf_dump import Config, Problem, array

        def part(x, i, n, T: ct.Constant[int]):
            acc = ct.zeros((T,), dtype=ct.float32)
            for j in range(n):
                acc = acc + ct.load(x, index=(i + j,), shape=(T,))
            return acc

        @ct.kernel
        def twice(x, y, T: ct.Constant[int]):
            for j in range(2):
                a = part(x, j, 4, T)
                ct.store(y, index=(j,), tile=a + part(y, j, 8, T))

        @ct.kernel
        def other(x, T: ct.Constant[int]):
            for j in range(3):
                ct.store(x, index=(j,), tile=ct.zeros((T,), dtype=ct.float32))

        def cfg(trips):
            return Config(twice, [array(ct.float32, 1), array(ct.float32, 1), 128],
                          problem=Problem(grid=1, trips=trips))

        CONFIGS = {"all": cfg({"j": 2}), "nth": cfg({"j#2": 5}), "own": cfg({"twice.j": 2}),
                   "calls": cfg({"part.j@1": 4, "part.j@2": 8}), "bad_call": cfg({"part.j@3": 1}),
                   "bad_key": cfg({"j#x": 1}), "kernel_call": cfg({"twice.j@1": 1})}
        """)
    module = load_kernel_module(tmp_path / "k.py")

    def trips(name):
        dump_config(module, name, tmp_path / name, "13.4")
        record = json.loads((tmp_path / name / f"{name}.tileirbc.json").read_text())
        if "problem_error" in record:
            return record["problem_error"]["message"]
        return [(t["loop"], t["lines"], [c["line"] for c in t.get("calls", [])])
                for t in record["problem"]["trips"]]

    assert trips("all") == [("j", [12, 6], [])]  # not other's loop at line 18
    assert trips("nth") == [("j#2", [6], [])]
    assert trips("own") == [("twice.j", [12], [])]
    assert trips("calls") == [("part.j@1", [6], [13]), ("part.j@2", [6], [14])]
    assert trips("bad_call").endswith("trips key 'part.j@3': part is called 2 time(s) in the "
                                      "kernel twice and the functions it calls")
    assert "is not [FUNCTION.]VAR[#N][@CALL]" in trips("bad_key")
    assert "@CALL names a call site of a helper" in trips("kernel_call")


def test_the_entry_arguments_and_while_loops_and_overrides_are_recorded(tmp_path, forget):
    write(tmp_path / "k.py", """\
        import cuda.tile as ct
        from cuda.tile.compilation import ListConstraint, ScalarConstraint
        from tileperf_dump import Case, Config, Problem, array, override

        @ct.kernel
        def k(x, xs, n, f, T: ct.Constant[int]):
            i = 0
            while i < n:
                i += 1
            for j in range(n):
                ct.store(x, index=(j, 0), tile=ct.zeros((T, T), dtype=ct.float32))

        def case(torch, rows=64):
            x = torch.empty(rows, 32, device="cuda", dtype=torch.float32).t()
            return Case(grid=(1,), args=(x, [x, x], 5, 0.5, 16), expected=dict)

        def cfg(trips):
            return Config(k, [array(ct.float32, 2, contiguous=False),
                              ListConstraint(array(ct.float32, 2, contiguous=False), alias_groups=(),
                                             elements_may_alias=False),
                              ScalarConstraint(ct.int32), ScalarConstraint(ct.float32), 16],
                          case=case, problem=Problem(grid=1, trips=trips))

        CONFIGS = {"plain": cfg({"while": 6}), "over": cfg({"j": override(9)}), "nowhile": cfg({"while#2": 1})}
        """)
    module = load_kernel_module(tmp_path / "k.py")

    def problem(name):
        dump_config(module, name, tmp_path / name, "13.4")
        record = json.loads((tmp_path / name / f"{name}.tileirbc.json").read_text())
        return record.get("problem", record.get("problem_error"))

    plain = problem("plain")
    # x: its pointer, shape (32, 64) and strides (1, 32) as the launch passes
    # them; the list: its pointer and length; n and f; the constant T: nothing.
    assert plain["args"] == [None, 32, 64, 1, 32, None, 2, 5, 0.5]
    assert [(t["loop"], t["lines"], t["trips"], "override" in t) for t in plain["trips"]] == [("while", [8], 6, False)]
    assert plain["declared_at"] == {"file": str(tmp_path / "k.py"), "line": 22}
    over = problem("over")
    assert [(t["loop"], t["trips"], t.get("override")) for t in over["trips"]] == [("j", 9, True)]
    assert problem("nowhile")["message"].endswith("trips key 'while#2': the kernel k and the functions it "
                                                  "calls has 1 'while' loop(s), at lines 8")


# A library that tunes its launch with cuTile's exhaustive_search, launches two
# kernels, and whose backend package re-exports what its ops import.
TUNED_LIBRARY = {
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
def tuned_library(tmp_path, forget):
    for name, text in TUNED_LIBRARY.items():
        write(tmp_path / name, text)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def launcher(torch):
    import tunelib.ops
    x = torch.empty(4096, dtype=torch.float32)
    tunelib.ops.tuned_copy(x, torch.empty_like(x))


def test_the_tuner_takes_the_configuration_tune_accepts(tuned_library):
    with library_imports((), ["tunelib"]):
        import tunelib.ops
    imports = ((), ("tunelib",))
    picked = capture_launch(launcher, arch("sm_90"), imports, kernel=tunelib.ops.copy,
                            tune=lambda c: c.TILE == 256)
    assert picked.grid == (16, 1, 1) and picked.constants == {"TILE": 256}
    with pytest.raises(LaunchError, match="tunes over 3 configuration"):
        capture_launch(launcher, arch("sm_90"), imports)
    with pytest.raises(LaunchError, match="accepts none of the 3 configuration"):
        capture_launch(launcher, arch("sm_90"), imports, tune=lambda c: False)


def test_the_last_launch_counts_and_a_list_of_arrays_is_a_list_constraint(tuned_library):
    with library_imports((), ["tunelib"]):
        import tunelib.ops  # noqa: F401 - the backend package's __init__ ran for `register`
    assert "tunelib.backend.registry" in sys.modules
    last = capture_launch(launcher, arch("sm_120"), ((), ("tunelib",)), tune=lambda c: True)
    assert last.kernel._pyfunc.__name__ == "fill"
    params = last.params()
    assert type(params[0]).__name__ == "ListConstraint" and params[1] == 128
    assert last.arrays()[1] == 4096 * 4  # the list's one allocation, once


def test_a_launch_that_fails_is_its_configurations_own_located_error(tuned_library, tmp_path):
    gate = write(tmp_path / "gate.py", """\
        from tileperf_dump import Config


        def broken(torch):
            import tunelib.ops
            tunelib.ops.tuned_copy(torch.empty(4096), torch.empty(int(torch.empty(3).sum())))


        CONFIGS = {"broken": Config(launch=broken, tune=lambda c: True)}
        """)
    module = load_kernel_module(gate, [], ["tunelib"])
    dump_config(module, "broken", tmp_path / "out", "13.4", ["sm_90"])
    record = json.loads((tmp_path / "out" / "broken.tileirbc.json").read_text())
    error = record["archs"]["sm_90"]["problem_error"]
    assert (error["file"], error["line"]) == (str(gate), 6)
    assert error["message"].startswith("CONFIGS['broken'].launch for sm_90: FakeGpuError: the launch reads "
                                       "the values of a tensor (aten._local_scalar_dense.default: .item(), "
                                       ".tolist(), bool(), or a comparison used as a condition), which a fake "
                                       "tensor does not hold")
    assert not (tmp_path / "out" / "broken.tileirbc").exists()


# A library that tunes once per process and keys its cache on the device
# name (as TileGym's does): the first architecture's answer would serve the
# others if they shared the process.
TUNED = {
    "tunelib/__init__.py": "",
    "tunelib/ops.py": """\
        import cuda.tile as ct
        import torch

        DEVICE = torch.cuda.get_device_name()  # asked once, at import
        _CACHE = {}


        @ct.kernel
        def copy(x, y, TILE: ct.Constant[int]):
            ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))


        def launch_copy(x, y):
            tile = _CACHE.setdefault("tile", 1024 if torch.cuda.get_device_capability()[0] >= 10 else 256)
            name = torch.cuda.get_device_name()
            assert name == DEVICE, f"asked {DEVICE} at import, {name} at launch"
            ct.launch(torch.cuda.current_stream(), (x.shape[0] // tile,), copy, (x, y, tile))
        """,
}
TUNED_CONFIG = """\
    from tileperf_dump import Config
    from tunelib.ops import launch_copy


    def launch(torch):
        x = torch.empty(1 << 20, dtype=torch.float16)
        launch_copy(x, torch.empty_like(x))


    CONFIGS = {"copy": Config(launch=launch)}
    """


def test_no_architecture_sees_what_the_library_cached_for_another(tmp_path, forget):
    """Each architecture's export imports the library anew in a process of its
    own: a tuning cache filled on the first architecture's launch, a device
    name asked at import, answer for that architecture alone."""
    for name, text in TUNED.items():
        write(tmp_path / name, text)
    config = write(tmp_path / "gate" / "copy_gate.py", TUNED_CONFIG)
    sys.path.insert(0, str(tmp_path))
    try:
        module = load_kernel_module(config, [], ["tunelib"])
        dump_config(module, "copy", tmp_path / "out", "13.4", ["sm_120", "sm_100", "sm_90"])
        _the_guard_in_one_process(module)
    finally:
        sys.path.remove(str(tmp_path))
    record = json.loads((tmp_path / "out" / "copy.tileirbc.json").read_text())
    grids = {a: e.get("problem", record.get("problem"))["grid"][0] for a, e in record["archs"].items()}
    assert not any("problem_error" in e for e in record["archs"].values()), record["archs"]
    assert grids == {"sm_120": 1024, "sm_100": 1024, "sm_90": 4096}


def _the_guard_in_one_process(module):
    # In one process the cache would carry sm_120's tile to sm_90: a library
    # imported for one architecture is refused a launch for another.
    module = reload_for(module, arch("sm_120"))
    first = capture_launch(module.CONFIGS["copy"].launch, arch("sm_120"), module.__tileperf_imports__,
                           imported_for=module.__tileperf_arch__)
    assert first.constants["TILE"] == 1024 and sys.modules["tunelib.ops"]._CACHE == {"tile": 1024}
    with pytest.raises(LaunchError, match="imported for sm_120, not sm_90: each architecture's "
                                          "launches run in a process of its own"):
        capture_launch(module.CONFIGS["copy"].launch, arch("sm_90"), module.__tileperf_imports__,
                       imported_for=module.__tileperf_arch__)


def test_the_fake_gpu_names_each_architectures_gpu():
    import torch
    from tileperf_dump.fake_gpu import fake_gpu
    names = {}
    for a in ("sm_90", "sm_100", "sm_120"):
        with fake_gpu(arch(a)):
            names[a] = torch.cuda.get_device_name()
    assert names == {"sm_90": "NVIDIA H200 SXM", "sm_100": "NVIDIA B200",
                     "sm_120": "NVIDIA RTX PRO 6000 Blackwell"}
    with fake_gpu(arch("sm_100")):
        assert torch.cuda.get_device_capability() == (10, 0)
    assert not torch.cuda.is_available()  # torch's own answer again outside


def test_tune_may_answer_per_architecture(library):
    from tileperf_dump.launch import accepts
    per_arch = lambda cfg, target: cfg == (128 if target.name == "sm_90" else 256)  # noqa: E731
    assert accepts(per_arch, 128, arch("sm_90")) and not accepts(per_arch, 128, arch("sm_120"))
    assert accepts(lambda cfg: cfg == 1, 1, arch("sm_90"))


def test_a_launch_of_another_kernel_names_what_was_launched(library):
    module = load(library)
    import cuda.tile as ct

    @ct.kernel
    def never(x):
        pass

    with pytest.raises(LaunchError, match=r"made no ct.launch of never for sm_90 \(it launched scale\)"):
        capture_launch(module.CONFIGS["launched"].launch, arch("sm_90"), module.__tileperf_imports__,
                       kernel=never, imported_for=module.__tileperf_arch__)


ENDS = """\
    import os
    import signal
    import sys

    import cuda.tile as ct
    from tileperf_dump import Config


    @ct.kernel
    def copy(x):
        pass


    def fine(torch):
        ct.launch(torch.cuda.current_stream(), (1,), copy, (torch.empty(16),))


    def exits(torch):
        sys.exit(0)


    def os_exit(torch):
        os._exit(0)


    def hangs(torch):
        while True:
            pass


    def killed(torch):
        os.kill(os.getpid(), signal.SIGKILL)


    CONFIGS = {"a_exits": Config(launch=exits), "b_os_exit": Config(launch=os_exit), "c_hangs": Config(launch=hangs),
               "d_killed": Config(launch=killed), "e_fine": Config(launch=fine)}
    """


def test_a_launch_that_ends_its_process_is_its_configurations_own_error(tmp_path, monkeypatch, forget):
    """sys.exit, os._exit, a hang past the time limit and a kill in one
    configuration's launch are that configuration's errors, located; the
    configurations after it export, in a fresh process where the old one died."""
    from tileperf_dump.export import export_per_arch
    monkeypatch.setenv("TILEPERF_LAUNCH_TIMEOUT", "2")
    gate = write(tmp_path / "ends_gate.py", ENDS)
    module = load_kernel_module(gate)
    exports = export_per_arch(module, sorted(module.CONFIGS), ["sm_90"], "13.4")
    errors = {name: e.problem_error for (name, _), e in exports.items()}
    assert errors["a_exits"]["message"].startswith("CONFIGS['a_exits'].launch for sm_90: the launch called sys.exit(0)")
    assert errors["b_os_exit"]["message"].startswith(
        "CONFIGS['b_os_exit'].launch for sm_90: ProcessExit: os._exit(0) ended the process")
    assert errors["c_hangs"]["message"].startswith(
        "CONFIGS['c_hangs'].launch for sm_90: StepTimeout: CONFIGS['c_hangs'].launch did not end within 2 s")
    assert [(errors[n]["file"], errors[n]["line"]) for n in ("a_exits", "b_os_exit", "c_hangs")] == \
        [(str(gate), 19), (str(gate), 23), (str(gate), 27)]
    assert errors["d_killed"] == {"file": str(gate), "line": 0, "message": (
        "CONFIGS['d_killed'] for sm_90: the process exporting it was killed by signal 9")}
    assert errors["e_fine"] is None and exports[("e_fine", "sm_90")].bytecode.startswith(b"\x7fTileIR")


def test_a_bare_packages_init_that_raises_is_named_with_its_first_cause(tmp_path, forget):
    """`from lib import name` runs a bare package's __init__.py; an
    AttributeError raised inside it (a dependency's missing attribute) is
    reported as what it is, where it was raised, not as "cannot import name"."""
    write(tmp_path / "baselib" / "__init__.py", "from baselib.tools import helper\nfrom baselib import utils\n")
    write(tmp_path / "baselib" / "tools.py", "def helper():\n    return 1\n")
    write(tmp_path / "baselib" / "utils.py", "import json\nPOOL = json.MemPool\n")
    write(tmp_path / "baselib" / "kernels" / "k.py", "from baselib import helper\n")
    gate = write(tmp_path / "gate.py", "import baselib.kernels.k\n")
    result = subprocess.run(
        [sys.executable, "-m", "tileperf_dump.manifest", "--bare-package", "baselib", "--kernel", "gate",
         "--work-dir", str(tmp_path / "work"), "--baseline-dir", str(tmp_path), "--archs", "sm_90", str(gate)],
        capture_output=True, text=True, env={"PYTHONPATH": f"{TOP / 'tools'}:{tmp_path}"})
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert first == (f"{gate}: BarePackageInitError: {tmp_path / 'baselib' / '__init__.py'}, the __init__.py of "
                     f"the bare package baselib (run for 'helper'), raised AttributeError: module 'json' has no "
                     f"attribute 'MemPool' (raised at {tmp_path / 'baselib' / 'utils.py'}:2)"), first
