"""Tests of the dump step (tools/tileperf_dump): configuration checks and
the bytecode it writes, with no GPU and no CUDA driver."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cuda.tile as ct
from tileperf_dump import ConfigError, array, dump_config, get_config, load_kernel_module

TOP = Path(__file__).resolve().parents[2]
KERNELS = TOP / "kernels"


def write_kernel(tmp_path, body, name="k.py"):
    path = tmp_path / name
    path.write_text("import cuda.tile as ct\nfrom tileperf_dump import Config, array\n" + body)
    return path


def test_array_defaults_describe_a_contiguous_aligned_matrix():
    a = array(ct.float16, 2)
    assert a.stride_constant == (None, 1)
    assert a.stride_divisible_by == (8, 1)  # 16 bytes of fp16
    assert a.base_addr_divisible_by == 16
    assert a.alias_groups == ()
    assert array(ct.float32, 2, shape_divisible_by=1).shape_divisible_by == (1, 1)


def test_dump_writes_bytecode_and_record(tmp_path):
    module = load_kernel_module(KERNELS / "vector_add.py")
    path = dump_config(module, "f16_1024", tmp_path, "13.4")
    data = path.read_bytes()
    assert data.startswith(b"\x7fTileIR\x00")
    assert data[8:10] == bytes([13, 4])  # bytecode version major, minor
    record = json.loads((tmp_path / "f16_1024.tileirbc.json").read_text())
    assert record["cuda_tile"] == ct.__version__
    assert record["bytecode_version"] == "13.4"
    assert record["kernel"] == "vector_add"
    assert record["seconds"] >= 0


def test_dump_is_deterministic(tmp_path):
    module = load_kernel_module(KERNELS / "softmax.py")
    first = dump_config(module, "f16_1024", tmp_path / "a", "13.4").read_bytes()
    second = dump_config(module, "f16_1024", tmp_path / "b", "13.4").read_bytes()
    assert first == second


def test_unknown_configuration_is_named(tmp_path):
    module = load_kernel_module(KERNELS / "gelu.py")
    with pytest.raises(KeyError, match=r"gelu.py: no configuration 'f64_1' in CONFIGS \(defined: "
                                       r"bf16_4096, f16_1024, f16_8192, f32_2048\)"):
        get_config(module, "f64_1")


def test_kernel_file_without_configs(tmp_path):
    path = write_kernel(tmp_path, "X = 1\n")
    with pytest.raises(ValueError, match="defines no CONFIGS dict"):
        load_kernel_module(path)


def test_bad_configuration_name(tmp_path):
    path = write_kernel(tmp_path, "@ct.kernel\ndef k(x):\n    pass\n"
                                  "CONFIGS = {'f16-1': Config(k, [array(ct.float16, 1)])}\n",
                        name="badname.py")
    with pytest.raises(ValueError, match=r"configuration name 'f16-1' must match"):
        load_kernel_module(path)


def test_driver_reports_unknown_configuration(tmp_path):
    """The dump step as CTest runs it: an unknown name fails with its message."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "tileperf_dump.plugin", str(TOP / "tools" / "tileperf_dump" / "dump_driver.py"),
         f"--tileperf-source={KERNELS / 'gelu.py'}", "--tileperf-configs=f16_1024,nope",
         f"--tileperf-out={tmp_path}"],
        capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1
    assert "no configuration 'nope' in CONFIGS" in result.stdout
    assert "1 failed, 1 passed" in result.stdout
    assert (tmp_path / "f16_1024.tileirbc").exists()


def test_the_record_names_what_was_exported(tmp_path):
    """Dtypes, constraints and hints are in the dump record's signature, so
    that a configuration switched to another dtype is told from its baseline."""
    module = load_kernel_module(KERNELS / "attention.py")
    dump_config(module, "bf16_d128", tmp_path, "13.4")
    signature = json.loads((tmp_path / "bf16_d128.tileirbc.json").read_text())["signature"]
    assert signature["parameters[0].dtype"] == "bfloat16"
    assert signature["parameters[0].shape_divisible_by"] == "(1, 1, 16, 16)"
    assert signature["parameters[4].kind"] == "ConstantConstraint"
    assert signature["parameters[4].value"] == "128"
    assert signature["hints.num_worker_warps"] == "8"
    assert signature["bytecode_version"] == "13.4"
    assert all(isinstance(v, str) for v in signature.values())


SCALE = """\
from cuda.tile.compilation import ScalarConstraint


@ct.kernel
def scale(x, y, alpha, TILE: ct.Constant[int]):
    v = ct.astype(ct.load(x, index=(ct.bid(0),), shape=(TILE,)), ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(v * alpha, y.dtype))


vec = array(ct.float16, 1)
CONFIGS = {{"f16": Config(scale, {params})}}
"""


def mismatched(tmp_path, params):
    tmp_path.mkdir(exist_ok=True)
    path = write_kernel(tmp_path, SCALE.format(params=params), name="scale.py")
    return load_kernel_module(path)


@pytest.mark.parametrize("params, message", [
    ("[vec, vec, ScalarConstraint(ct.float32)]",
     r"gives 3 parameters and kernel scale\(x, y, alpha, TILE\) takes 4: no value for TILE$"),
    ("[vec, vec]",
     r"gives 2 parameters and kernel scale\(x, y, alpha, TILE\) takes 4: no value for alpha, TILE$"),
    ("[vec, vec, ScalarConstraint(ct.float32), 512, 3]",
     r"gives 5 parameters and kernel scale\(x, y, alpha, TILE\) takes 4: no parameter for "
     r"params\[4\] = 3$"),
    ("[vec, vec, ScalarConstraint(ct.float32), 512, vec]",
     r"gives 5 parameters and kernel scale\(x, y, alpha, TILE\) takes 4: no parameter for "
     r"params\[4\] = ArrayConstraint\(float16\)$"),
    ("[vec, vec, ScalarConstraint(ct.float32), vec]",
     r"parameter TILE of kernel scale\(x, y, alpha, TILE\) is a ct.Constant, but the "
     r"configuration gives it ArrayConstraint\(float16\), a runtime value"),
    ("[vec, vec, ScalarConstraint(ct.float32), ScalarConstraint(ct.int32)]",
     r"parameter TILE of kernel scale\(x, y, alpha, TILE\) is a ct.Constant, but the "
     r"configuration gives it ScalarConstraint\(int32\), a runtime value"),
])
def test_a_signature_that_no_longer_matches_is_named(tmp_path, params, message):
    """A parameter added to or removed from the kernel, or a runtime value
    for a constant: the configuration and the parameter are named (cuTile
    says only 'zip() argument 2 is longer than argument 1')."""
    module = mismatched(tmp_path, params)
    with pytest.raises(ConfigError, match=r"scale.py: CONFIGS\['f16'\]:? " + message):
        dump_config(module, "f16", tmp_path, "13.4")
    assert not (tmp_path / "f16.tileirbc").exists()


def test_driver_names_the_missing_parameter(tmp_path):
    path = write_kernel(tmp_path, SCALE.format(params="[vec, vec, ScalarConstraint(ct.float32)]"),
                        name="scale.py")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "tileperf_dump.plugin", str(TOP / "tools" / "tileperf_dump" / "dump_driver.py"),
         f"--tileperf-source={path}", f"--tileperf-out={tmp_path}"],
        capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1
    assert (f"{path}: CONFIGS['f16'] gives 3 parameters and kernel scale(x, y, alpha, TILE) "
            f"takes 4: no value for TILE") in result.stdout
    assert "Traceback" not in result.stdout


@pytest.mark.parametrize("params, message", [
    ("dict(x=vec, y=vec, TILE=512)", r"no value for alpha of kernel scale\(x, y, alpha, TILE\)$"),
    ("dict(x=vec, y=vec, alpha=ScalarConstraint(ct.float32), beta=1.0, TILE=512)",
     r"kernel scale\(x, y, alpha, TILE\) has no parameter 'beta'$"),
])
def test_parameters_by_name_name_what_changed(tmp_path, params, message):
    """Given by name, the parameter added to or removed from the middle of
    the kernel is the one named."""
    module = mismatched(tmp_path, params)
    with pytest.raises(ConfigError, match=r"scale.py: CONFIGS\['f16'\]: " + message):
        dump_config(module, "f16", tmp_path, "13.4")


def test_parameters_by_name_export_as_in_order(tmp_path):
    by_name = mismatched(tmp_path / "a", "dict(TILE=512, y=vec, alpha=ScalarConstraint(ct.float32), "
                                         "x=vec)")
    in_order = mismatched(tmp_path / "b", "[vec, vec, ScalarConstraint(ct.float32), 512]")
    assert by_name.CONFIGS["f16"].signature() == in_order.CONFIGS["f16"].signature()
    assert dump_config(by_name, "f16", tmp_path / "a", "13.4").stat().st_size > 0
