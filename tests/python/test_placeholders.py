"""Kernel files of a library: modules that import packages the gate machine
lacks (placeholder modules, here a GPU library "gpulib" that is not
installed) and their own package; torch itself."""

import json
import re
import subprocess
import sys
from textwrap import dedent
from pathlib import Path

import pytest

from tileperf_dump import PlaceholderError, dump_config, load_kernel_module
from tileperf_dump.placeholders import Placeholder, placeholder_modules

TOP = Path(__file__).resolve().parents[2]

KERNEL = """\
import cuda.tile as ct
from tileperf_dump import Config, array


@ct.kernel
def copy(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))

"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_what_a_library_does_with_a_missing_package_at_import_evaluates():
    with placeholder_modules(["gpulib", "triton"]):
        import gpulib
        import gpulib.nn.functional as F
        from gpulib.library import custom_op
        from typing import Optional

        @custom_op("lib::f", mutates_args=())
        def f(x: gpulib.Tensor, y: Optional[gpulib.Tensor] = None) -> gpulib.Tensor | None:
            return x

        class Op(gpulib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

        table = {gpulib.float16: 2, gpulib.bfloat16: 3}
        import triton.language as tl
    assert table[gpulib.float16] == 2 and gpulib.float16 is gpulib.float16
    assert isinstance(F, type(gpulib)) and isinstance(tl.constexpr, Placeholder)
    assert Op.forward(None, 5) == 5 and Op.__mro__[1].__name__ == "Function"
    assert "gpulib.library.custom_op(...)(...)" in repr(f)
    assert "gpulib" not in sys.modules and "triton" not in sys.modules


@pytest.mark.parametrize("use, path, what", [
    (lambda lib: bool(lib.cuda.is_available()), r"gpulib.cuda.is_available\(...\)",
     "used as a truth value"),
    (lambda lib: lib.__version__ >= "2.4", "gpulib.__version__", "compared"),
    (lambda lib: 8 * lib.float16.itemsize, "gpulib.float16.itemsize", "used in arithmetic"),
    (lambda lib: list(lib.Size), "gpulib.Size", "iterated"),
    (lambda lib: range(lib.cuda.device_count()), r"gpulib.cuda.device_count\(...\)",
     "used as a number"),
    (lambda lib: isinstance(1, lib.Tensor), "gpulib.Tensor", "used as a type"),
])
def test_a_placeholder_is_never_taken_for_a_real_value(use, path, what):
    with placeholder_modules(["gpulib"]):
        import gpulib
    with pytest.raises(PlaceholderError, match=f"^{path} \\(a placeholder: the module 'gpulib' is "
                                               f"not installed here\\) cannot be {what}"):
        use(gpulib)


def test_placeholders_leave_and_the_real_module_comes_back():
    real = sys.modules["json"]
    with placeholder_modules(["json"]):
        import json
        assert json is not real and "placeholder" in repr(json)
    assert sys.modules["json"] is real
    with pytest.raises(ValueError, match="'gpulib-nightly' is not a module name"):
        with placeholder_modules(["gpulib-nightly"]):
            pass


def test_a_kernel_file_that_imports_torch_dumps(tmp_path):
    path = write(tmp_path / "k.py", "import torch\n" + KERNEL + dedent("""\
        DTYPES = {torch.float16: ct.float16}


        @torch.library.custom_op("k::copy", mutates_args=("y",))
        def launch(x: torch.Tensor, y: torch.Tensor) -> None:
            ct.launch(torch.cuda.current_stream(), (x.shape[0] // 256,), copy, (x, y, 256))


        CONFIGS = {"f16": Config(copy, [array(DTYPES[torch.float16], 1)] * 2 + [256])}
        """))
    module = load_kernel_module(path)  # torch itself: its custom_op registers for real
    assert dump_config(module, "f16", tmp_path / "out", "13.4").read_bytes().startswith(b"\x7fTileIR")


def test_the_kernel_compiling_a_placeholder_is_named(tmp_path):
    path = write(tmp_path / "uses.py", "import gpulib\n" + KERNEL.replace("def copy", "def old") + dedent("""\
        @ct.kernel
        def cast(x, y, TILE: ct.Constant[int]):
            v = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
            ct.store(y, index=(ct.bid(0),), tile=ct.astype(v, gpulib.float8_e4m3fnuz))


        @ct.kernel
        def fine(x, y, TILE: ct.Constant[int]):
            v = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
            ct.store(y, index=(ct.bid(0),), tile=ct.astype(v, ct.float16))


        CONFIGS = {"f16": Config(cast, [array(ct.float32, 1), array(ct.float16, 1), 256]),
                   "fine": Config(fine, [array(ct.float32, 1), array(ct.float16, 1), 256])}
        """))
    module = load_kernel_module(path, ["gpulib"])
    dump_config(module, "f16", tmp_path / "out", "13.4")
    error = json.loads((tmp_path / "out" / "f16.tileirbc.json").read_text())["problem_error"]
    assert not (tmp_path / "out" / "f16.tileirbc").exists()
    assert re.match(r"CONFIGS\['f16'\] does not compile: PlaceholderError: .*uses.py: CONFIGS\['f16'\]: "
                    r"the kernel compiles a placeholder where cuTile needs the real value \(gpulib."
                    r"float8_e4m3fnuz \(a placeholder: the module 'gpulib' is not installed here\)\)",
                    error["message"])
    assert error["file"] == str(path) and error["line"] == 0
    # The file's other configuration exports.
    assert dump_config(module, "fine", tmp_path / "out", "13.4").stat().st_size > 0


def test_a_torch_dtype_in_a_kernel_body_is_cuTiles(tmp_path):
    """A kernel body naming torch.float16 (torch's own) compiles as with ct.float16."""
    path = write(tmp_path / "dtype.py", "import torch\n" + KERNEL + dedent("""\
        @ct.kernel
        def cast(x, y, TILE: ct.Constant[int]):
            v = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
            ct.store(y, index=(ct.bid(0),), tile=ct.astype(v, torch.float16))


        CONFIGS = {"f16": Config(cast, [array(ct.float32, 1), array(ct.float16, 1), 256])}
        """))
    module = load_kernel_module(path)
    assert dump_config(module, "f16", tmp_path / "out", "13.4").read_bytes().startswith(b"\x7fTileIR")
    assert "problem_error" not in json.loads((tmp_path / "out" / "f16.tileirbc.json").read_text())


def test_a_placeholder_among_the_parameters_is_named(tmp_path):
    path = write(tmp_path / "param.py", "import gpulib\n" + KERNEL + dedent("""\
        CONFIGS = {"f16": Config(copy, [array(ct.float16, 1)] * 2 + [gpulib.float8_e4m3fnuz])}
        """))
    module = load_kernel_module(path, ["gpulib"])
    with pytest.raises(PlaceholderError, match=r"param.py: CONFIGS\['f16'\]: parameter TILE of "
                       r"kernel copy\(x, y, TILE\) is gpulib.float8_e4m3fnuz \(a placeholder: the module "
                       r"'gpulib' is not installed here\): give the cuTile value"):
        dump_config(module, "f16", tmp_path / "out", "13.4")


def library(root: Path) -> Path:
    """A package: lib/__init__.py imports gpulib, lib/kernels/copy.py imports
    its package absolutely and relatively."""
    write(root / "lib" / "__init__.py", "import gpulib\nfrom lib import utils\n")
    write(root / "lib" / "utils.py", "import gpulib\nTILE = 256\n")
    write(root / "lib" / "kernels" / "__init__.py", "")
    write(root / "lib" / "kernels" / "common.py", "from lib.utils import TILE\n")
    return write(root / "lib" / "kernels" / "copy.py", KERNEL + dedent("""\
        from lib.utils import TILE
        from .common import TILE as SAME

        CONFIGS = {"f16": Config(copy, [array(ct.float16, 1)] * 2 + [TILE + SAME - 256])}
        """))


@pytest.fixture
def forget_lib():
    yield
    for name in [n for n in sys.modules if n == "lib" or n.startswith("lib.")]:
        del sys.modules[name]


def test_a_kernel_file_inside_a_package_is_imported_by_its_name(tmp_path, forget_lib):
    module = load_kernel_module(library(tmp_path), ["gpulib"])
    assert module.__name__ == "lib.kernels.copy"
    assert module.CONFIGS["f16"].params[2] == 256
    assert dump_config(module, "f16", tmp_path / "out", "13.4").stat().st_size > 0


def manifest(*args, work="."):
    where = ["--kernel", "k", "--work-dir", work, "--baseline-dir", ".", "--archs", "sm_90"]
    return subprocess.run([sys.executable, "-m", "tileperf_dump.manifest", *where, *map(str, args)],
                          capture_output=True, text=True)


def test_the_manifest_takes_placeholders_and_says_where_an_import_failed(tmp_path):
    source = library(tmp_path / "a")
    result = manifest("--placeholder", "gpulib", source, work=tmp_path)
    assert result.returncode == 0, result.stderr
    assert '"f16"' in (tmp_path / "k" / "configs.json").read_text()
    result = manifest(source)
    assert result.returncode == 2
    assert f"No module named 'gpulib' (raised at {tmp_path / 'a' / 'lib' / '__init__.py'}:1)" \
        in result.stderr
    bad = write(tmp_path / "b" / "k.py", "import gpulib\n\nif gpulib.distributed.is_initialized():\n    pass\n")
    result = manifest("--placeholder", "gpulib", bad)
    assert result.returncode == 2
    assert f"gpulib.distributed.is_initialized(...) (a placeholder: the module 'gpulib' is not installed " \
           f"here) cannot be used as a truth value (raised at {bad}:3)" in result.stderr
    result = manifest("--placeholder", "torch", bad)
    assert result.returncode == 2
    assert "torch is not a placeholder module: the dump step runs launch code against torch itself" \
        in result.stderr
