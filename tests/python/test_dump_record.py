"""The dump record (<config>.tileirbc.json) as a versioned contract: the dump
step writes records of the version the tileperf command reads, and what it
writes for the configuration of tests/fixtures/dump_record/ has exactly the
fixture's keys, each holding a value of the fixture's type. The tileperf
command's reader is held to the same fixture by tests/unit/dump_record_test.cpp."""

import importlib.util
import json
from pathlib import Path

import pytest

from tileperf_dump import dump_config, load_kernel_module
from tileperf_dump.export import RECORD_FORMAT

TOP = Path(__file__).resolve().parents[2]
FIXTURES = TOP / "tests" / "fixtures" / "dump_record"
FLASHINFER = importlib.util.find_spec("flashinfer")


def capture_script():
    """tests/fixtures/dump_record/capture.py, which made the fixture."""
    spec = importlib.util.spec_from_file_location("dump_record_capture", FIXTURES / "capture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shape(value, path: str = "") -> dict[str, str]:
    """Every place of a JSON value ("archs.sm_90.problem.grid[0]") and the
    type of what it holds there: the keys of objects and the length of
    lists are part of it, the values of strings and numbers are not."""
    if isinstance(value, dict):
        places = {path: "object"}
        for key, inner in value.items():
            places.update(shape(inner, f"{path}.{key}" if path else key))
        return places
    if isinstance(value, list):
        places = {path: "list"}
        for i, inner in enumerate(value):
            places.update(shape(inner, f"{path}[{i}]"))
        return places
    return {path: type(value).__name__}


def test_shape_names_each_place_and_type():
    assert shape({"a": [1, None], "b": {"c": "x", "d": 0.5}}) == {
        "": "object", "a": "list", "a[0]": "int", "a[1]": "NoneType", "b": "object", "b.c": "str", "b.d": "float"}


def test_the_fixture_is_of_the_version_the_dump_step_writes():
    fixture = json.loads(capture_script().FIXTURE.read_text())
    assert fixture["format"] == RECORD_FORMAT == "tileperf-dump-record/1"


@pytest.mark.skipif(FLASHINFER is None, reason="examples/flashinfer/requirements.txt is not installed")
def test_the_dump_step_writes_the_fixtures_keys_and_types(tmp_path):
    """The configuration the fixture was captured from, dumped again: the same
    places, each of the same type; where a value does not vary with the
    machine (neither a path nor a time), the same value too."""
    capture = capture_script()
    fixture = json.loads(capture.FIXTURE.read_text())
    record = json.loads(capture.dump(tmp_path).read_text())
    assert shape(record) == shape(fixture)
    for key in ("format", "config", "kernel", "symbol", "bytecode_version"):
        assert record[key] == fixture[key], key
    assert {a: e.get("bytecode") for a, e in record["archs"].items()} == \
        {a: e.get("bytecode") for a, e in fixture["archs"].items()}
    assert json.loads(capture.portable(json.dumps(record["problem"]))) == fixture["problem"]


def test_a_project_kernels_record_is_of_the_fixtures_kinds(tmp_path):
    """A shipped kernel's record (no library, no architectures): each of its
    top-level keys is one of the fixture's, of the same type."""
    fixture = shape(json.loads(capture_script().FIXTURE.read_text()))
    module = load_kernel_module(TOP / "kernels" / "softmax.py")
    dump_config(module, "f16_1024", tmp_path, "13.4")
    record = json.loads((tmp_path / "f16_1024.tileirbc.json").read_text())
    assert record["format"] == RECORD_FORMAT
    top = {k: v for k, v in shape(record).items() if k and "." not in k and "[" not in k}
    assert top == {k: fixture[k] for k in top}


def test_a_record_that_says_why_there_is_no_bytecode_has_the_version(tmp_path):
    """A configuration whose kernel does not compile: its record holds the
    error and no signature, and is of the same version."""
    path = tmp_path / "broken.py"
    path.write_text("import cuda.tile as ct\nfrom tileperf_dump import Config, array\n\n\n"
                    "@ct.kernel\ndef broken(x, TILE: ct.Constant[int]):\n"
                    "    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * nowhere)\n\n\n"
                    "CONFIGS = {\"f32\": Config(broken, [array(ct.float32, 1), 256])}\n")
    dump_config(load_kernel_module(path), "f32", tmp_path / "out", "13.4")
    record = json.loads((tmp_path / "out" / "f32.tileirbc.json").read_text())
    assert sorted(record) == ["config", "format", "problem_error"]
    assert record["format"] == RECORD_FORMAT
    assert "does not compile" in record["problem_error"]["message"]


def test_a_work_folder_of_an_older_dump_step_exports_again(tmp_path):
    """The stamp holds the dump step's own modules (export.py among them, which
    writes the record): the record of a tileperf_dump that differs from this
    one, an older one's without a version, is written again by the next run."""
    capture = capture_script()
    out = tmp_path / "out"

    def dump():
        return capture.run_dump_step(out, TOP / "kernels" / "vector_add.py", "f16_1024")

    assert dump().returncode == 0
    stamp = json.loads((out / "dump.stamp.json").read_text())
    writer = str(TOP / "tools" / "tileperf_dump" / "export.py")
    assert writer in stamp["inputs"]
    # As an older tileperf left it: its own export.py, a record without a version.
    stamp["inputs"][writer] = "0" * 64
    (out / "dump.stamp.json").write_text(json.dumps(stamp))
    record_path = out / "f16_1024.tileirbc.json"
    older = json.loads(record_path.read_text())
    del older["format"]
    record_path.write_text(json.dumps(older))
    again = dump()
    assert f"dumping: {writer} changed" in again.stdout, again.stdout + again.stderr
    assert json.loads(record_path.read_text())["format"] == RECORD_FORMAT
