"""The work folder's and the baselines' file names (tileperf_dump.paths),
checked against the table the C++ path module is checked against too."""

import json
from pathlib import Path

import pytest

from tileperf_dump import paths

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "work_paths.json"
ROWS = json.loads(TABLE.read_text())["rows"]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['root']}:{r['path']}")
def test_builds_each_path_of_the_table(row):
    built = paths.relative(row["kind"], row["kernel"], row["config"], row["arch"], row["part"])
    assert str(built) == row["path"]
    assert paths.KINDS[row["kind"]].root == row["root"]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['root']}:{r['path']}")
def test_parses_each_path_of_the_table(row):
    assert paths.parse(row["root"], row["path"]) == paths.WorkPath(
        row["root"], row["kind"], row["kernel"], row["config"], row["arch"], row["part"])


def test_the_fixture_covers_every_kind_of_the_table():
    table = json.loads(paths.TABLE_FILE.read_text())["kinds"]
    assert {r["kind"] for r in ROWS} == {k["kind"] for k in table} == set(paths.KINDS)


def test_the_run_files_lie_in_the_work_folder(tmp_path):
    assert paths.in_work_dir(tmp_path, "run") == tmp_path / "run.json"
    assert paths.in_work_dir(tmp_path, "dump_batch", "kernels.2") == tmp_path / "dump-batch.kernels.2.json"
    with pytest.raises(paths.PathError):
        paths.in_work_dir(tmp_path, "dump_batch", "kernels/2")
    with pytest.raises(paths.PathError):
        paths.file_name("run")


def test_per_arch_bytecode_round_trips():
    built = paths.relative("arch_bytecode", "matmul", "f16_t128", "sm_90")
    assert str(built) == "matmul/f16_t128.sm_90.tileirbc"
    assert paths.parse("work", built) == ("work", "arch_bytecode", "matmul", "f16_t128", "sm_90", None)


@pytest.mark.parametrize("root, path", [
    ("work", "softmax/bf16_2048.sm_90.json"),       # a baseline's name in the work folder
    ("baselines", "softmax/bf16_2048.sm_90.cubin"),  # a work file's name among the baselines
    ("work", "softmax/bf16_2048.sm90.cubin"),        # not an architecture
    ("work", "soft-max/configs.json"),               # a kernel name the rule forbids
    ("work", "softmax/bf-16.tileirbc"),
    ("work", "configs.json"),
    ("cache", "softmax/configs.json"),
])
def test_rejects_what_names_no_file(root, path):
    with pytest.raises(paths.PathError):
        paths.parse(root, path)


@pytest.mark.parametrize("kernel, config, arch", [
    ("soft-max", "a", "sm_90"), ("softmax", "a.b", "sm_90"), ("softmax", "a", "90"),
    ("softmax", None, "sm_90"), ("", "a", "sm_90")])
def test_refuses_to_build_a_name_the_rule_forbids(kernel, config, arch):
    with pytest.raises(paths.PathError):
        paths.relative("cubin", kernel, config, arch)


def test_dump_outputs_are_the_bytecode_and_records_by_name(tmp_path):
    for name in ("a.tileirbc", "a.tileirbc.json", "a.sm_90.tileirbc", "a.sm_90.cubin",
                 "dump.stamp.json", "a.tileirbc.tmp.x1", "notes.txt"):
        (tmp_path / name).write_text("")
    assert [p.name for p in paths.dump_outputs(tmp_path)] == [
        "a.sm_90.tileirbc", "a.tileirbc", "a.tileirbc.json"]
