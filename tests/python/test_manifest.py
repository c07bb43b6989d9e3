"""The manifest step (tileperf_dump.manifest), which hands CMake what it
registers for a kernel file: its record, which the batch steps read too."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tileperf_dump import cmake, manifest

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
    result = run_manifest(tmp_path, "--placeholder", "gpulib", "--checks-dir", str(tmp_path / "checks"))
    assert result.returncode == 0, result.stderr
    work = tmp_path / "work" / "scale"
    assert result.stdout == f"{work / 'registration.cmake'}\n"
    record = json.loads((work / "configs.json").read_text())
    assert record["configs"] == ["b", "a"]  # the file's order
    assert record["summary"] == "Scales a vector: one block per tile."
    assert record["checks"] == str(tmp_path / "checks")  # the kernel's policies
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
        "--tileperf-placeholders=gpulib", "--tileperf-archs=sm_120,sm_90"]


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




@pytest.mark.parametrize("value", [
    "Gather: y = x[idx]", "]", "]=", "a]=]b]=", "x]]y", "${HOME}", "a;b", 'say "hi"', "back\\slash",
    "\nafter a newline", "\r\nafter a return", "two\nlines", "[[", "]]]]", "\\", ""])
def test_cmake_reads_back_every_quoted_value(tmp_path, value):
    """What CMake reads from cmake_quoted is the value itself (a docstring's
    first sentence ending in "]" broke configure)."""
    out = tmp_path / "out.txt"
    script = tmp_path / "read.cmake"
    script.write_text(cmake.cmake_set("v", value) + f'file(WRITE [[{out}]] "${{v}}")\n')
    result = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == value.encode()


@pytest.mark.parametrize("body, first_line", [
    ("import sys\nsys.exit(0)\n", "{source}: the import called sys.exit(0) (raised at {source}:2)"),
    ("import os\nos._exit(0)\n",
     "{source}: ProcessExit: os._exit(0) ended the process (raised at {source}:2)"),
    ("import time\nwhile True:\n    time.sleep(0.05)\n",
     "{source}:3: the import of {source} did not end within 1 s (TILEPERF_MANIFEST_TIMEOUT); where it was:"),
])
def test_an_import_that_ends_or_hangs_its_process_is_the_files_error(tmp_path, body, first_line):
    source = tmp_path / "k.py"
    source.write_text(body)
    result = subprocess.run(
        [sys.executable, "-m", "tileperf_dump.manifest", "--kernel", "k", "--work-dir", str(tmp_path / "work"),
         "--baseline-dir", str(tmp_path), "--archs", "sm_90", "--timeout", "1", str(source)],
        capture_output=True, text=True, env={"PYTHONPATH": str(TOP / "tools")}, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == first_line.format(source=source)
    assert f'File "{source}", line' in result.stderr  # the traceback, kept
    assert not (tmp_path / "work").exists()
