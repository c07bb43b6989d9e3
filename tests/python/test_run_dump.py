"""The dump step as the tests run it (tools/tileperf_dump/run_dump.py): the
stamp that skips an export when nothing deciding the bytecode changed, and
the batch that exports many kernel files from one Python start."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
TOOLS = TOP / "tools"
RUN_DUMP = TOOLS / "tileperf_dump" / "run_dump.py"
KERNELS = TOP / "kernels"

# A kernel whose tile size comes from a helper module beside it.
KERNEL = """import cuda.tile as ct
from tileperf_dump import Config, array
from helper import TILE


@ct.kernel
def scale(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(T,))
    ct.store(y, index=(b,), tile=t * 2)


CONFIGS = {"f32": Config(scale, [array(ct.float32, 1), array(ct.float32, 1), TILE])}
"""


def pytest_args(source: Path, out: Path, configs: str = "") -> list[str]:
    return ["-q", "-p", "no:cacheprovider", "-p", "tileperf_dump.plugin",
            "--rootdir", str(TOOLS / "tileperf_dump"), str(TOOLS / "tileperf_dump" / "dump_driver.py"),
            f"--tileperf-source={source}", f"--tileperf-configs={configs}",
            f"--tileperf-out={out}", "--tileperf-bytecode-version=13.4"]


def env() -> dict:
    e = {k: v for k, v in os.environ.items() if k != "CUDA_HOME"}
    e["PYTHONPATH"] = str(TOOLS)
    return e


def dump(stamp: Path, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RUN_DUMP), "--stamp", str(stamp), "--", *args],
                          capture_output=True, text=True, env=env())


def batch(path: Path, entries: list[dict], *extra: str) -> subprocess.CompletedProcess:
    """The batch of one registration record holding `entries`."""
    record = path.with_name(path.stem + ".record.json")
    record.write_text(json.dumps({"dump_batch": entries}))
    path.write_text(json.dumps({"format": "tileperf-dump-batch/2", "records": [str(record)]}))
    return subprocess.run([sys.executable, str(RUN_DUMP), "--batch", str(path), *extra],
                          capture_output=True, text=True, env=env())


def kernel_dir(root: Path, tile: int) -> Path:
    root.mkdir(parents=True)
    (root / "k.py").write_text(KERNEL)
    (root / "helper.py").write_text(f"TILE = {tile}\n")
    return root


def test_an_unchanged_kernel_is_not_exported_again(tmp_path):
    src = kernel_dir(tmp_path / "src", 128)
    out, stamp = tmp_path / "out", tmp_path / "out" / "dump.stamp.json"
    args = pytest_args(src / "k.py", out)
    first = dump(stamp, args)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "dumping: no stamp" in first.stdout
    inputs = json.loads(stamp.read_text())["inputs"]
    assert str(src / "k.py") in inputs and str(src / "helper.py") in inputs
    assert dump(stamp, args).stdout.startswith("dump up to date")
    # The helper the kernel imports decides the bytecode too.
    (src / "helper.py").write_text("TILE = 256\n")
    again = dump(stamp, args)
    assert f"dumping: {src / 'helper.py'} changed" in again.stdout
    assert dump(stamp, args).stdout.startswith("dump up to date")
    # So do the arguments.
    assert "arguments" in dump(stamp, pytest_args(src / "k.py", out, "f32")).stdout


def test_a_failed_export_leaves_no_stamp(tmp_path):
    src = kernel_dir(tmp_path / "src", 128)
    out, stamp = tmp_path / "out", tmp_path / "out" / "dump.stamp.json"
    assert dump(stamp, pytest_args(src / "k.py", out)).returncode == 0
    (src / "k.py").write_text(KERNEL + "\nundefined_name\n")  # the file no longer imports
    failed = dump(stamp, pytest_args(src / "k.py", out))
    assert failed.returncode != 0
    assert not stamp.exists()


def test_the_batch_exports_each_file_in_isolation(tmp_path):
    """Two kernel files with a helper of the same name and different
    contents, and one file that fails: each good file is exported with its
    own helper and stamped as its own dump test would stamp it; the bad one
    is left to its dump test, and the batch itself passes."""
    a, b = kernel_dir(tmp_path / "a", 128), kernel_dir(tmp_path / "b", 512)
    bad = kernel_dir(tmp_path / "bad", 64)
    (bad / "k.py").write_text(KERNEL + "\nundefined_name\n")
    entries = [{"test": f"dump.{d.name}", "stamp": str(tmp_path / "out" / d.name / "dump.stamp.json"),
                "pytest_args": pytest_args(d / "k.py", tmp_path / "out" / d.name)} for d in (a, b, bad)]
    r = batch(tmp_path / "batch.json", entries, "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 kernel file(s), 0 up to date, 3 to export" in r.stdout
    assert "dump.a: exported in " in r.stdout and "dump.b: exported in " in r.stdout
    assert "dump.bad: failed" in r.stdout and "undefined_name" in r.stdout
    assert "2 exported, 1 left to their own dump test" in r.stdout
    for d in (a, b):
        inputs = json.loads(Path(entries[0 if d is a else 1]["stamp"]).read_text())["inputs"]
        assert str(d / "helper.py") in inputs
        assert not any(str(other) in name for name in inputs for other in ({a, b, bad} - {d}))
    # Each with its own helper's tile size.
    assert (tmp_path / "out/a/f32.tileirbc").read_bytes() != (tmp_path / "out/b/f32.tileirbc").read_bytes()
    # The dump tests then find their stamps current; the bad one fails alone.
    for e in entries[:2]:
        assert dump(Path(e["stamp"]), e["pytest_args"]).stdout.startswith("dump up to date")
    assert dump(Path(entries[2]["stamp"]), entries[2]["pytest_args"]).returncode != 0
    # One stale file (one kernel edited) is exported by the batch too, in
    # the Python it preloaded, and its dump test then finds it current.
    (a / "helper.py").write_text((a / "helper.py").read_text() + "\n# edited\n")
    again = batch(tmp_path / "batch.json", entries[:2])
    assert "2 kernel file(s), 1 up to date, 1 to export" in again.stdout
    assert "dump.a: exported in " in again.stdout and "1 exported, 0 left" in again.stdout
    assert dump(Path(entries[0]["stamp"]), entries[0]["pytest_args"]).stdout.startswith("dump up to date")


def test_batch_and_single_exports_are_byte_identical(tmp_path):
    """Every shipped kernel file, exported by the batch and by its own dump
    step: the same bytecode and records, file for file."""
    sources = sorted(p for p in KERNELS.glob("*.py") if "\nCONFIGS = " in p.read_text())
    assert len(sources) >= 12
    entries = [{"test": f"dump.{s.stem}", "stamp": str(tmp_path / "batch" / s.stem / "dump.stamp.json"),
                "pytest_args": pytest_args(s, tmp_path / "batch" / s.stem)} for s in sources]
    r = batch(tmp_path / "batch.json", entries)
    assert f"{len(sources)} exported, 0 left" in r.stdout, r.stdout + r.stderr
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        singles = list(pool.map(lambda s: dump(tmp_path / "single" / s.stem / "dump.stamp.json",
                                               pytest_args(s, tmp_path / "single" / s.stem)), sources))
    for s, single in zip(sources, singles):
        assert single.returncode == 0, single.stdout + single.stderr
        names = sorted(p.name for p in (tmp_path / "single" / s.stem).glob("*.tileirbc*"))
        assert names and names == sorted(p.name for p in (tmp_path / "batch" / s.stem).glob("*.tileirbc*"))
        for name in names:
            one, other = (tmp_path / d / s.stem / name for d in ("single", "batch"))
            if name.endswith(".json"):  # the records differ in the export's seconds only
                x, y = (json.loads(p.read_text()) for p in (one, other))
                x.pop("seconds"), y.pop("seconds")
                assert x == y, f"{s.stem}/{name}"
            else:
                assert one.read_bytes() == other.read_bytes(), f"{s.stem}/{name}"


@pytest.mark.parametrize("content, record, where", [
    ("not json", None, ":1: not JSON"),
    ('{"format": "other", "records": []}', None, ":format: expected"),
    ('{"format": "tileperf-dump-batch/2", "records": {}}', None, ":records: expected a list of paths"),
    ('{"format": "tileperf-dump-batch/2", "records": ["RECORD"]}', None, ":0: cannot read"),
    ('{"format": "tileperf-dump-batch/2", "records": ["RECORD"]}', '{"dump_batch": {}}',
     ":dump_batch: expected a list"),
    ('{"format": "tileperf-dump-batch/2", "records": ["RECORD"]}', '{"dump_batch": [{"test": "x"}]}',
     ":dump_batch[0]: expected"),
])
def test_a_bad_batch_file_or_record_is_a_located_error(tmp_path, content, record, where):
    path, record_path = tmp_path / "batch.json", tmp_path / "record.json"
    path.write_text(content.replace("RECORD", str(record_path)))
    if record is not None:
        record_path.write_text(record)
    r = subprocess.run([sys.executable, str(RUN_DUMP), "--batch", str(path)],
                       capture_output=True, text=True, env=env())
    assert r.returncode == 2
    named = record_path if "RECORD" in content else path
    assert r.stderr.startswith(f"run_dump.py: error: {named}{where}"), r.stderr


# A kernel whose tile size a configuration reads from a file beside it.
READS_FILE = """import json
from pathlib import Path

import cuda.tile as ct
from tileperf_dump import Config, array


@ct.kernel
def scale(x, y, T: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(y, index=(b,), tile=ct.load(x, index=(b,), shape=(T,)) * 2)


TILE = json.loads(Path(__file__).with_name("tile.json").read_text())["tile"]
CONFIGS = {"f32": Config(scale, [array(ct.float32, 1), array(ct.float32, 1), TILE])}
"""


def test_a_file_a_configuration_reads_is_part_of_the_stamp(tmp_path):
    (tmp_path / "k.py").write_text(READS_FILE)
    (tmp_path / "tile.json").write_text('{"tile": 128}')
    stamp, out = tmp_path / "out" / "dump.stamp.json", tmp_path / "out"
    assert dump(stamp, pytest_args(tmp_path / "k.py", out)).returncode == 0
    first = (out / "f32.tileirbc").read_bytes()
    assert str(tmp_path / "tile.json") in json.loads(stamp.read_text())["inputs"]
    assert "up to date" in dump(stamp, pytest_args(tmp_path / "k.py", out)).stdout
    (tmp_path / "tile.json").write_text('{"tile": 256}')
    again = dump(stamp, pytest_args(tmp_path / "k.py", out))
    assert again.returncode == 0 and f"dumping: {tmp_path / 'tile.json'} changed" in again.stdout
    assert (out / "f32.tileirbc").read_bytes() != first


def test_an_installed_distribution_of_another_version_exports_again(tmp_path):
    kernel = kernel_dir(tmp_path / "src", 128)
    stamp, out = tmp_path / "out" / "dump.stamp.json", tmp_path / "out"
    assert dump(stamp, pytest_args(kernel / "k.py", out)).returncode == 0
    record = json.loads(stamp.read_text())
    assert record["distributions"].get("cuda-tile") and record["distributions"].get("pytest")
    record["distributions"]["pytest"] = "0.1"  # as if pytest had been upgraded since
    stamp.write_text(json.dumps(record))
    again = dump(stamp, pytest_args(kernel / "k.py", out))
    from importlib import metadata
    assert f"dumping: pytest 0.1 -> {metadata.version('pytest')}" in again.stdout, again.stdout


TILEGYM = __import__("importlib.util").util.find_spec("tilegym")


@pytest.mark.skipif(TILEGYM is None, reason="examples/tilegym/requirements.txt is not installed")
@pytest.mark.parametrize("edit", ["definition", "workload"])
def test_an_edited_inventory_file_exports_again(tmp_path, edit):
    """A kernel inventory's definitions and workloads are read when the file
    is imported: an edit of either is seen by the stamp, and the bytecode
    is the edited inventory's."""
    import shutil
    shipped = Path(TILEGYM.submodule_search_locations[0]) / "transformers" / "olmo3"
    shutil.copytree(shipped, tmp_path / "inv" / "olmo3", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    kernel = tmp_path / "inv_gate.py"
    kernel.write_text(f"from tileperf_dump import inventory_configs\n\nCONFIGS = inventory_configs({str(tmp_path / 'inv')!r})\n")
    stamp, out = tmp_path / "out" / "dump.stamp.json", tmp_path / "out"
    args = pytest_args(kernel, out) + ["--tileperf-bare-packages=tilegym", "--tileperf-placeholders=cuda.bindings",
                                       "--tileperf-archs=sm_90"]
    first = dump(stamp, args)
    assert first.returncode == 0, first.stdout + first.stderr
    names = sorted(p.name for p in out.glob("olmo3_dual_rms_norm*.tileirbc"))
    before = (out / names[0]).read_bytes()
    definition = tmp_path / "inv" / "olmo3" / "kernel_definitions" / "olmo3_dual_rms_norm.json"
    workloads = tmp_path / "inv" / "olmo3" / "kernel_workloads" / "olmo3_dual_rms_norm" / "workload.jsonl"
    if edit == "definition":
        definition.write_text(definition.read_text().replace('"bfloat16"', '"float16"'))
        changed = definition
    else:
        workloads.write_text(workloads.read_text().replace('"D":64', '"D":128'))
        changed = workloads
    again = dump(stamp, args)
    assert again.returncode == 0 and f"dumping: {changed} changed" in again.stdout, again.stdout
    after = sorted(p.name for p in out.glob("olmo3_dual_rms_norm*.tileirbc"))
    assert after != names or (out / names[0]).read_bytes() != before
