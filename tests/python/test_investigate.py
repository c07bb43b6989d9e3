"""Tests of the investigation's exports (tileperf_dump.investigate,
tileperf_dump.variants): each variant kind changes what it says it changes,
with no GPU and no tileiras (cuTile's export alone); a variant that cannot
be made is a row with its error."""

import json
from pathlib import Path

import pytest

from tileperf_dump import load_kernel_module
from tileperf_dump.investigate import investigate
from tileperf_dump.loading import get_config
from tileperf_dump import variants as V

TOP = Path(__file__).resolve().parents[2]
KERNELS = TOP / "kernels"


def rows(listing, kind):
    return [r for r in listing["variants"] if r["kind"] == kind]


def record(row):
    return json.loads(Path(row["dump_info"]).read_text())


@pytest.fixture(scope="module")
def gelu(tmp_path_factory):
    out = tmp_path_factory.mktemp("gelu")
    return investigate(str(KERNELS / "gelu.py"), "bf16_4096", "sm_90", out, "13.4"), out


def test_the_base_is_the_configuration_as_the_dump_step_exports_it(gelu, tmp_path):
    from tileperf_dump import dump_config
    listing, out = gelu
    module = load_kernel_module(KERNELS / "gelu.py")
    dumped = dump_config(module, "bf16_4096", tmp_path, "13.4")
    assert Path(listing["base"]["bytecode"]).read_bytes() == dumped.read_bytes()


def test_the_census_finds_each_costly_operation_at_its_line(gelu):
    listing, _ = gelu
    line = next(i for i, text in enumerate((KERNELS / "gelu.py").read_text().splitlines(), 1) if "ct.tanh(" in text)
    sites = {(s["class"], s["where"]): s["ops"] for s in listing["sites"]}
    assert sites[("transcendental", f"gelu.py:{line}")] == {"tanh": 1}
    assert any(cls == "cast" for cls, _ in sites)


def test_an_isolated_operation_is_gone_from_the_variant_and_nothing_else_is(gelu):
    listing, _ = gelu
    [tanh] = [r for r in rows(listing, "isolate") if r["changes"]["class"] == "transcendental"]
    assert tanh["replaced"] == 1 and tanh["left_at_site"] == 0
    assert tanh["what"] == "tanh -> x * 0.5"
    base = Path(listing["base"]["bytecode"]).read_bytes()
    assert Path(tanh["bytecode"]).read_bytes() != base
    # The problem and signature stay the configuration's.
    assert record(tanh)["problem"] == json.loads(Path(listing["base"]["dump_info"]).read_text())["problem"]


def test_token_order_off_exports_other_bytecode(gelu):
    listing, _ = gelu
    [row] = rows(listing, "token_order")
    assert Path(row["bytecode"]).read_bytes() != Path(listing["base"]["bytecode"]).read_bytes()


def test_a_hint_variant_carries_its_hint_in_the_signature(gelu):
    listing, _ = gelu
    by_what = {r["what"]: r for r in rows(listing, "hint")}
    assert set(by_what) == {"occupancy=1", "occupancy=2", "occupancy=4", "num_ctas=2", "num_worker_warps=4",
                            "num_worker_warps=8"}
    assert record(by_what["occupancy=2"])["signature"]["hints.occupancy"] == "2"
    assert record(by_what["num_ctas=2"])["signature"]["hints.num_ctas"] == "2"


def test_a_tuning_variant_is_built_again_by_the_configurations_own_function(gelu):
    listing, _ = gelu
    assert listing["tuning_arguments"] == {"tile": 4096}
    base_grid = json.loads(Path(listing["base"]["dump_info"]).read_text())["problem"]["grid"]
    grids = {r["changes"]["to"]: record(r)["problem"]["grid"] for r in rows(listing, "tune")}
    assert grids == {2048: [base_grid[0] * 2], 8192: [base_grid[0] // 2]}
    assert all(r["changes"]["constants"] == {"TILE": ["4096", str(r["changes"]["to"])]} for r in rows(listing, "tune"))


def test_exp_is_tried_as_exp2(tmp_path):
    path = tmp_path / "softplus.py"
    path.write_text(
        "import cuda.tile as ct\nfrom tileperf_dump import Config, Problem, array\n"
        "@ct.kernel\ndef softplus(x, y, T: ct.Constant[int]):\n"
        "    v = ct.astype(ct.load(x, index=(ct.bid(0),), shape=(T,)), ct.float32)\n"
        "    ct.store(y, index=(ct.bid(0),), tile=ct.log(1.0 + ct.exp(v)))\n"
        "def _config(tile):\n"
        "    return Config(softplus, [array(ct.float32, 1), array(ct.float32, 1), tile],\n"
        "                  problem=Problem(grid=(1 << 20) // tile))\n"
        "CONFIGS = {'t': _config(256)}\n")
    listing = investigate(str(path), "t", "sm_90", tmp_path / "out", "13.4")
    [exp2] = rows(listing, "exp2")
    assert exp2["where"] == "softplus.py:6" and exp2["replaced"] == 1 and exp2["left_at_site"] == 0
    # One isolation per class and line: both transcendentals of the line at once.
    [both] = [r for r in rows(listing, "isolate") if r["changes"]["class"] == "transcendental"]
    assert both["changes"]["ops"] == {"exp": 1, "log": 1} and both["replaced"] == 2 and both["left_at_site"] == 0


def test_a_variant_that_cannot_be_made_is_a_row_with_its_error(tmp_path):
    path = tmp_path / "scale.py"
    path.write_text(
        "import cuda.tile as ct\nfrom tileperf_dump import Config, Problem, array\n"
        "@ct.kernel\ndef scale(x, y, T: ct.Constant[int]):\n"
        "    v = ct.load(x, index=(ct.bid(0),), shape=(T,))\n"
        "    ct.store(y, index=(ct.bid(0),), tile=ct.sqrt(v))\n"
        "def _config(tile):\n"
        "    if tile > 512:\n"
        "        raise ValueError(f'tile {tile} is more than this kernel takes')\n"
        "    return Config(scale, [array(ct.float32, 1), array(ct.float32, 1), tile],\n"
        "                  problem=Problem(grid=(1 << 20) // tile))\n"
        "CONFIGS = {'t': _config(512)}\n")
    listing = investigate(str(path), "t", "sm_90", tmp_path / "out", "13.4")
    by_what = {r["what"]: r for r in rows(listing, "tune")}
    assert "bytecode" in by_what["tile 512 -> 256"]
    assert by_what["tile 512 -> 1024"]["error"] == "ValueError: tile 1024 is more than this kernel takes"
    assert "bytecode" not in by_what["tile 512 -> 1024"]


def test_a_configuration_built_at_module_level_explores_its_hints_only(tmp_path):
    path = tmp_path / "copy.py"
    path.write_text(
        "import cuda.tile as ct\nfrom tileperf_dump import Config, Problem, array\n"
        "@ct.kernel\ndef copy(x, y, T: ct.Constant[int]):\n"
        "    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))\n"
        "CONFIGS = {'t': Config(copy, [array(ct.float32, 1), array(ct.float32, 1), 256],\n"
        "                       problem=Problem(grid=4096))}\n")
    module = load_kernel_module(path)
    assert get_config(module, "t").built_by is None
    assert V.tuning_arguments(get_config(module, "t"), {"parameters[2].kind": "ConstantConstraint",
                                                        "parameters[2].value": "256"}) == {}
    listing = investigate(str(path), "t", "sm_90", tmp_path / "out", "13.4", kinds=frozenset({"tune", "hint"}))
    assert not rows(listing, "tune") and rows(listing, "hint")
    assert "not built by a module-level function" in listing["tuning_note"]


def test_the_compiler_is_left_as_it_was():
    from cuda.tile._ir.arithmetic_ops import Unary
    import cuda.tile._compile as compile_
    before = Unary.__dict__["generate_bytecode"]
    with V.emitting(lambda op, ctx: None), V.token_order_off():
        assert Unary.__dict__["generate_bytecode"] is not before
        assert compile_.CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER
    assert Unary.__dict__["generate_bytecode"] is before
    assert not compile_.CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER
