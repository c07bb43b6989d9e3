"""The manifest step (tileperf_dump.manifest), which hands CMake what it
registers for a kernel file, and the batch lists (tileperf_dump.batches)
made from its records."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tileperf_dump import batches, cmake, manifest

TOP = Path(__file__).resolve().parents[2]
KERNEL = '''\
"""Scales a vector: one block per tile. The rest of the paragraph
is not part of the summary.

Nor is this one."""
import cuda.tile as ct
from tileperf_dump import Config, array


@ct.kernel
def k(x, TILE: ct.Constant[int]):
    pass


CONFIGS = {"b": Config(k, [array(ct.float16, 1), 128]), "a": Config(k, [array(ct.float16, 1), 64])}
'''


def run_manifest(tmp_path, *extra):
    source = tmp_path / "scale.py"
    source.write_text(KERNEL)
    return subprocess.run(
        [sys.executable, "-m", "tileperf_dump.manifest", "--kernel", "scale", "--work-dir",
         str(tmp_path / "work"), "--baseline-dir", str(tmp_path / "baselines" / "scale"),
         "--archs", "sm_120,sm_90", *extra, str(source)],
        capture_output=True, text=True, env={"PYTHONPATH": str(TOP / "tools")})


def test_the_record_names_every_test_and_its_files(tmp_path):
    result = run_manifest(tmp_path, "--placeholder", "torch")
    assert result.returncode == 0, result.stderr
    work = tmp_path / "work" / "scale"
    assert result.stdout == f"{work / 'registration.cmake'}\n"
    record = json.loads((work / "configs.json").read_text())
    assert record["configs"] == ["b", "a"]  # the file's order
    assert record["summary"] == "Scales a vector: one block per tile."
    assert [t["test"] for t in record["tests"]] == [
        "perf.scale.b.sm_120", "perf.scale.b.sm_90", "perf.scale.a.sm_120", "perf.scale.a.sm_90"]
    assert record["tests"][1] == {
        "test": "perf.scale.b.sm_90", "config": "b", "arch": "sm_90",
        "bytecode": str(work / "b.tileirbc"),
        "baseline": str(tmp_path / "baselines" / "scale" / "b.sm_90.json")}
    assert record["compile_batch"][1]["dump_info"] == str(work / "b.tileirbc.json")
    dump = record["dump_batch"][0]
    assert dump["test"] == "dump.scale" and dump["stamp"] == str(work / "dump.stamp.json")
    assert dump["pytest_args"][-4:] == [
        f"--tileperf-out={work}", "--tileperf-bytecode-version=13.4",
        "--tileperf-placeholders=torch", "--tileperf-archs=sm_120,sm_90"]


def test_the_registration_is_cmake_that_sets_the_same_facts(tmp_path):
    assert run_manifest(tmp_path).returncode == 0
    text = (tmp_path / "work" / "scale" / "registration.cmake").read_text()
    assert "\nset(tileperf_configs b a)\n" in text
    assert "\nset(tileperf_summary [[Scales a vector: one block per tile.]])\n" in text
    assert (f"\nset(tileperf_test_perf.scale.a.sm_120 CONFIG a ARCH sm_120 BYTECODE "
            f"{tmp_path}/work/scale/a.tileirbc BASELINE {tmp_path}/baselines/scale/a.sm_120.json)\n"
            in text)


def test_a_bad_kernel_name_is_an_error(tmp_path):
    result = run_manifest(tmp_path, "--kernel", "sca-le")
    assert result.returncode == 2
    assert "kernel name 'sca-le' must match [A-Za-z0-9_]+" in result.stderr


@pytest.mark.parametrize("value, quoted", [
    ("sm_90", "sm_90"), ("/a/b.json", "/a/b.json"), ("--tileperf-configs=", "--tileperf-configs="),
    ("two words", "[[two words]]"), ("a;b", "[[a;b]]"), ("x]]y", "[=[x]]y]=]"),
    ("${HOME}", "[[${HOME}]]"), ("", "[[]]")])
def test_cmake_quoting_keeps_the_value(value, quoted):
    assert cmake.cmake_quoted(value) == quoted


@pytest.mark.parametrize("doc, summary", [
    ("One line.", "One line."), ("No sentence end\nover two lines", "No sentence end over two lines"),
    ("First. Second. Third.", "First."), (None, ""), ("Text.\n\nNext paragraph.", "Text.")])
def test_the_summary_is_the_first_sentence(doc, summary):
    assert manifest.summary(SimpleNamespace(__doc__=doc)) == summary


def test_the_batch_lists_join_the_records_entries(tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps({"dump_batch": [{"test": "dump.a"}], "compile_batch": [{"test": "p1"}]}))
    two.write_text(json.dumps({"dump_batch": [{"test": "dump.b"}], "compile_batch": [{"test": "p2"}]}))
    out = tmp_path / "dump.json"
    assert batches.main(["--dump", str(out), str(one), str(two),
                         "--compile", str(tmp_path / "compile.json"), str(two)]) == 0
    assert json.loads(out.read_text()) == {"format": "tileperf-dump-batch/1",
                                           "entries": [{"test": "dump.a"}, {"test": "dump.b"}]}
    assert json.loads((tmp_path / "compile.json").read_text())["entries"] == [{"test": "p2"}]


def test_an_unreadable_record_is_an_error_naming_the_list(tmp_path, capsys):
    out = tmp_path / "dump.json"
    assert batches.main(["--dump", str(out), str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.startswith(f"tileperf: error: {out}: cannot read the batch entries: ")
    assert not out.exists()
