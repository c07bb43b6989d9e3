"""The reader of a kernel inventory in FlashInfer-Bench's schema
(tileperf_dump.workloads), on TileGym's shipped Definition, Workload and
Solution files and on bad ones."""
import importlib.util
import json
from pathlib import Path

import pytest

from tileperf_dump.placeholders import library_imports
from tileperf_dump.workloads import inventory_configs, read_definition, read_workloads

_spec = importlib.util.find_spec("tilegym")
if _spec is None:
    pytest.skip("examples/tilegym/requirements.txt is not installed", allow_module_level=True)
SHIPPED = Path(_spec.submodule_search_locations[0]) / "transformers"
IMPORTS = (("cuda.bindings",), ("tilegym",))


def shipped_configs():
    with library_imports(*IMPORTS):
        return inventory_configs(SHIPPED)


def test_every_shipped_workload_is_a_configuration():
    definitions = sorted(SHIPPED.glob("*/kernel_definitions/*.json"))
    workloads = sum(len(read_workloads(p.parent.parent / "kernel_workloads" / p.stem / "workload.jsonl",
                                       read_definition(p))) for p in definitions)
    configs = shipped_configs()
    assert len(definitions) == 13 and len(configs) == workloads == 13
    assert "olmo3_dual_rms_norm_d64_n3" in configs


def test_a_configuration_launches_the_solution_with_the_workloads_shapes():
    from tileperf_dump import arch
    from tileperf_dump.launch import capture_launch
    config = shipped_configs()["olmo3_dual_rms_norm_d64_n3"]
    captured = capture_launch(config.launch, arch("sm_90"), IMPORTS)
    shapes = [a["shape"] for a in captured.arrays()[0]]
    assert [3, 64] in shapes and [64] in shapes


def write_inventory(tmp_path, definition, workload="", solution=None):
    (tmp_path / "m" / "kernel_definitions").mkdir(parents=True)
    (tmp_path / "m" / "kernel_definitions" / "op.json").write_text(json.dumps(definition))
    (tmp_path / "m" / "kernel_workloads" / "op").mkdir(parents=True)
    (tmp_path / "m" / "kernel_workloads" / "op" / "workload.jsonl").write_text(workload)
    (tmp_path / "m" / "kernel_solutions").mkdir(parents=True)
    (tmp_path / "m" / "kernel_solutions" / "op.json").write_text(json.dumps(solution or {
        "definition": "op", "spec": {"language": "cuda-tile", "entry_point": "src/json.py::dumps"}}))
    return tmp_path / "m" / "kernel_definitions" / "op.json"


GOOD = {"name": "op", "axes": {"N": {"type": "var"}, "D": {"type": "const", "value": 64}},
        "inputs": {"x": {"dtype": "bfloat16", "shape": ["N", "D"]}, "eps": {"dtype": "float32", "shape": None}}}


@pytest.mark.parametrize("change, where", [
    (lambda d: d["axes"]["N"].update(type="dynamic"), "axes.N.type"),
    (lambda d: d["axes"]["D"].pop("value"), "axes.D.value"),
    (lambda d: d["inputs"]["x"].update(shape=["N", "H"]), "inputs.x.shape"),
    (lambda d: d.pop("inputs"), "inputs"),
])
def test_a_bad_definition_is_named_with_its_place(tmp_path, change, where):
    definition = json.loads(json.dumps(GOOD))
    change(definition)
    path = write_inventory(tmp_path, definition)
    with pytest.raises(ValueError, match=rf"^{path}:{where}: "):
        inventory_configs(tmp_path)


@pytest.mark.parametrize("line, where", [
    ('{"axes": {}, "inputs": {"x": {"type": "random"}, "eps": {"type": "scalar", "value": 1}}}',
     "1: axes.N"),
    ('{"axes": {"N": 3}, "inputs": {"x": {"type": "random"}, "eps": {"type": "scalar"}}}',
     "1: inputs.eps.value"),
    ('{"axes": {"N": 3}, "inputs": {"x": {"type": "random"}}}', "1: inputs.eps"),
    ("not json", "1"),
])
def test_a_bad_workload_is_named_with_its_line(tmp_path, line, where):
    write_inventory(tmp_path, GOOD, line + "\n")
    path = tmp_path / "m" / "kernel_workloads" / "op" / "workload.jsonl"
    with pytest.raises(ValueError, match=rf"^{path}:{where}"):
        inventory_configs(tmp_path)


def test_a_solution_in_another_language_makes_no_configuration(tmp_path):
    write_inventory(tmp_path, GOOD, '{"axes": {"N": 3}, "inputs": {"x": {"type": "random"}, '
                    '"eps": {"type": "scalar", "value": 1e-6}}}\n',
                    {"definition": "op", "spec": {"language": "triton", "entry_point": "src/x.py::f"}})
    assert inventory_configs(tmp_path) == {}


@pytest.mark.parametrize("data, where, what", [
    (b'{"name": "op\xff", "axes": {}, "inputs": {}}', "1", "not UTF-8 (byte 12)"),
    (b"[" * 3000, "1", "JSON nested deeper than 64 levels"),
    (json.dumps(dict(GOOD, inputs={"x": {"dtype": "bfloat16", "shape": [[1]]}})).encode(), "inputs.x.shape",
     "expected null or a list of axes of ['D', 'N'] or integers, got [[1]]"),
    (json.dumps(dict(GOOD, name="../../etc")).encode(), "name",
     "expected a word of [A-Za-z0-9_.-] that does not start with a dot"),
    (json.dumps(dict(GOOD, axes={"D": {"type": "const", "value": True}})).encode(), "axes.D.value",
     "a const axis needs an integer value from 0 to 9223372036854775807"),
    (b'{"name": "op", "name": "op", "axes": {}, "inputs": {}}', "1",
     "not JSON: key 'name' appears twice in one object"),
])
def test_a_hostile_definition_is_refused_with_its_place(tmp_path, data, where, what):
    path = tmp_path / "op.json"
    path.write_bytes(data)
    with pytest.raises(ValueError) as e:
        read_definition(path)
    assert str(e.value) == f"{path}:{where}: {what}"


@pytest.mark.parametrize("line, where, what", [
    ('{"axes": {"N": true}, "inputs": {}}', "1: axes.N",
     "an axis value must be an integer from 0 to 9223372036854775807"),
    ('{"axes": {"N": 1e999}, "inputs": {}}', "1", "not JSON: number 1e999 is past a double's range"),
    ('{"axes": {"N": NaN}, "inputs": {}}', "1", "not JSON: NaN is not a number JSON allows"),
])
def test_a_hostile_workload_is_refused_with_its_line(tmp_path, line, where, what):
    path = tmp_path / "workload.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ValueError) as e:
        read_workloads(path, GOOD)
    assert str(e.value) == f"{path}:{where}: {what}"


def test_a_solution_whose_spec_is_not_an_object_is_refused(tmp_path):
    write_inventory(tmp_path, GOOD, "", {"definition": "op", "spec": "cuda-tile"})
    path = tmp_path / "m" / "kernel_solutions" / "op.json"
    with pytest.raises(ValueError, match=rf"^{path}:spec: expected an object$"):
        inventory_configs(tmp_path)
