"""The self-tests' edit registration (tests/edits/edits.py): what a patch
header says, and the errors of a header that breaks its rules."""

import importlib.util
import json
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("edits", TOP / "tests" / "edits" / "edits.py")
edits = importlib.util.module_from_spec(spec)
spec.loader.exec_module(edits)

DIFF = "--- a/kernels/gelu.py\n+++ b/kernels/gelu.py\n@@ -1 +1 @@\n-x\n+y\n"


def run(tmp_path, folder: str, header: str, capsys) -> tuple[int, str]:
    patches = tmp_path / folder
    patches.mkdir(exist_ok=True)
    (patches / "gelu_edit.patch").write_text(header + DIFF)
    code = edits.main(["--selftest-dir", str(tmp_path / "selftest"), "--baseline-dir",
                       str(tmp_path / "baselines"), "--archs", "sm_120,sm_90",
                       "--bytecode-version", "13.4", "--kernel", f"gelu={TOP}/kernels/gelu.py",
                       f"--{folder}", str(patches)])
    return code, capsys.readouterr()


def test_a_mutant_records_what_it_expects_and_its_checks(tmp_path, capsys):
    code, out = run(tmp_path, "mutants", "Why.\nexpect: cost.launch\nconfig: f16_1024\narchs: sm_90 sm_80\n",
                    capsys)
    assert code == 0, out.err
    selftest = tmp_path / "selftest"
    assert out.out == f"{selftest / 'edits.cmake'}\n"
    assert json.loads((selftest / "edits.json").read_text()) == [{
        "name": "gelu_edit", "kind": "mutant", "expect": ["cost.launch"], "configs": ["f16_1024"],
        "archs": ["sm_90"]}]
    text = (selftest / "edits.cmake").read_text()
    assert "set(tileperf_edit_gelu_edit_checks mutant.gelu_edit.f16_1024.sm_90)\n" in text
    assert (f"BASELINE {tmp_path}/baselines/gelu/f16_1024.sm_90.json)" in text)
    record = json.loads((selftest / "edits.record.json").read_text())
    assert record["dump_batch"][0]["stamp"] == str(selftest / "gelu_edit" / "dump.stamp.json")


def test_a_validation_edit_keeps_its_measurement_and_miss(tmp_path, capsys):
    code, out = run(tmp_path, "validation",
                    "expect: measured\nconfig: f16_1024\nmeasured: f16_1024=-3.0%\nmiss: too slow\n",
                    capsys)
    assert code == 0, out.err
    entry = json.loads((tmp_path / "selftest" / "edits.json").read_text())[0]
    assert (entry["kind"], entry["measured"], entry["miss"]) == ("validation", "f16_1024=-3.0%", "too slow")
    assert entry["archs"] == ["sm_120", "sm_90"]


@pytest.mark.parametrize("folder, header, error", [
    ("mutants", "config: f16_1024\n", "the header has no 'expect:' line"),
    ("mutants", "expect: cost.launch\n", "the header has no 'config:' line"),
    ("mutants", "expect: no change\nconfig: f16_1024\n", "a mutant must expect metrics, not 'no change'"),
    ("noops", "expect: cost.launch\nconfig: f16_1024\n", "a no-op edit must say 'expect: no change'"),
    ("validation", "expect: no change\nconfig: f16_1024\n", "a validation edit must say 'expect: measured'"),
])
def test_a_header_that_breaks_the_rules_is_an_error_naming_the_patch(tmp_path, capsys, folder, header, error):
    code, out = run(tmp_path, folder, header, capsys)
    assert code == 2
    assert out.err == f"{tmp_path / folder / 'gelu_edit.patch'}: {error}\n"


def test_a_patch_of_an_unregistered_file_is_an_error(tmp_path, capsys):
    (tmp_path / "mutants").mkdir()
    (tmp_path / "mutants" / "x.patch").write_text("expect: a\nconfig: b\n+++ b/kernels/nothing.py\n")
    code = edits.main(["--selftest-dir", str(tmp_path), "--baseline-dir", str(tmp_path), "--archs",
                       "sm_90", "--bytecode-version", "13.4", "--mutants", str(tmp_path / "mutants")])
    assert code == 2
    assert "edits 'kernels/nothing.py', which no registered kernel uses" in capsys.readouterr().err
