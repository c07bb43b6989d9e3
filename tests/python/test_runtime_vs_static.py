"""Tests of the runtime-versus-static join (tools/bench/runtime_vs_static.py)
and of the launch checks of the GPU timing (tools/gpu/gate_launch.py), on
CPU: known inputs, ties, missing metrics, stale static files."""

import hashlib
import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


rvs = load("runtime_vs_static", TOP / "tools/bench/runtime_vs_static.py")


# ---------------------------------------------------------------------------
# Ranks and Spearman


def test_average_ranks_share_ties():
    assert rvs.average_ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    assert rvs.average_ranks([3, 1, 2]) == [3, 1, 2]
    assert rvs.average_ranks([5, 5, 5]) == [2, 2, 2]
    assert rvs.average_ranks([]) == []


def test_average_ranks_put_infinity_last():
    assert rvs.average_ranks([math.inf, 1.0, math.inf, -2.0]) == [3.5, 2, 3.5, 1]


def test_spearman_of_monotone_sequences():
    assert rvs.spearman([1, 2, 3, 4], [10, 20, 30, 400]) == pytest.approx(1.0)
    assert rvs.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_spearman_with_ties_uses_average_ranks():
    # ranks of y: 1, 2, 3.5, 5, 3.5; Pearson with 1..5 is 8 / sqrt(10 * 9.5)
    assert rvs.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(8 / math.sqrt(95))
    # ties on both sides: ranks x 1.5 1.5 3 4, y 1 2.5 2.5 4
    x, y = [1, 1, 2, 3], [1, 2, 2, 3]
    rx, ry = [1.5, 1.5, 3, 4], [1, 2.5, 2.5, 4]
    mx, my = sum(rx) / 4, sum(ry) / 4
    expected = sum((a - mx) * (b - my) for a, b in zip(rx, ry)) / math.sqrt(
        sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    assert rvs.spearman(x, y) == pytest.approx(expected)


def test_spearman_undefined_cases():
    assert rvs.spearman([1, 2], [2, 1]) is None          # too few pairs
    assert rvs.spearman([1, 1, 1], [1, 2, 3]) is None    # no spread
    with pytest.raises(ValueError):
        rvs.spearman([1, 2, 3], [1, 2])


def test_delta_pct():
    assert rvs.delta_pct(100, 150) == pytest.approx(50.0)
    assert rvs.delta_pct(200, 100) == pytest.approx(-50.0)
    assert rvs.delta_pct(0, 0) == 0.0
    assert rvs.delta_pct(0, 2) == math.inf


# ---------------------------------------------------------------------------
# The join


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def side(build, rel_dir, config, metrics, cubin):
    d = build / rel_dir
    d.mkdir(parents=True, exist_ok=True)
    if metrics is not None:
        (d / f"{config}.sm_90.metrics.json").write_text(json.dumps({"metrics": metrics}))
    if cubin is not None:
        (d / f"{config}.sm_90.cubin").write_bytes(cubin)


def timing_row(patch, kind, config, base_ms, edit_ms, base_cubin, edit_cubin, **extra):
    row = {"id": f"{patch}.{config}", "patch": patch, "kind": kind, "kernel": "k",
           "config": config, "arch": "sm_90",
           "base": {"median_ms": base_ms, "n": 20, "cubin_sha256": sha(base_cubin)},
           "edit": {"median_ms": edit_ms, "n": 20, "cubin_sha256": sha(edit_cubin)},
           "pair_ratio_p25": edit_ms / base_ms, "pair_ratio_p75": edit_ms / base_ms}
    row.update(extra)
    return row


@pytest.fixture
def corpus(tmp_path):
    """A build tree and a timing document: three mutants (one whose static
    side was rebuilt after the timing), one no-op, one row that failed."""
    build = tmp_path / "build"
    base = b"base cubin"
    side(build, "tileperf/k", "c", {"sass.instructions": 100, "regs": 40}, base)
    rows = []
    for name, instr, ms in (("m1", 110, 1.1), ("m2", 300, 2.5), ("m3", 200, 1.9)):
        cubin = name.encode()
        side(build, f"tileperf-selftest/{name}", "c", {"sass.instructions": instr, "regs": 40},
             cubin)
        rows.append(timing_row(name, "mutant", "c", 1.0, ms, base, cubin))
    # m4: the cubin in the build tree is no longer the one timed
    side(build, "tileperf-selftest/m4", "c", {"sass.instructions": 999, "regs": 41}, b"new")
    rows.append(timing_row("m4", "mutant", "c", 1.0, 9.0, base, b"old"))
    side(build, "tileperf-selftest/n1", "c", {"sass.instructions": 100, "regs": 40}, b"n1")
    rows.append(timing_row("n1", "noop", "c", 1.0, 1.004, base, b"n1"))
    rows.append({"id": "m5.c", "patch": "m5", "kind": "mutant", "kernel": "k", "config": "c",
                 "arch": "sm_90", "error": "RuntimeError: could not launch"})
    doc = {"created": "2026-01-01T00:00:00+00:00", "command": "time_edits.py",
           "provenance": {"gpu": "Test GPU"}, "cubins": {"tileiras_release": "13.4.92"},
           "rows": rows}
    path = tmp_path / "timing.json"
    path.write_text(json.dumps(doc))
    return build, path, doc


def test_join_reads_both_sides_and_reports_missing_metrics(corpus):
    build, _, doc = corpus
    row = rvs.join_row(doc["rows"][1], build, ["sass.instructions", "loop.main.ii"])
    assert row["runtime"]["delta_pct"] == pytest.approx(150.0)
    assert row["static"]["sass.instructions"] == {"base": 100, "edit": 300,
                                                  "delta_pct": pytest.approx(200.0)}
    missing = row["static"]["loop.main.ii"]
    assert missing["delta_pct"] is None and missing["base"] is None and missing["edit"] is None
    assert missing["missing"] == ["base", "edit"]
    assert row["static_matches_timed_cubins"]


def test_join_flags_static_files_of_another_cubin(corpus):
    build, _, doc = corpus
    row = rvs.join_row(doc["rows"][3], build, ["sass.instructions"])
    assert not row["static_matches_timed_cubins"]
    assert row["static_files"]["edit"]["state"] == "the cubin beside the metrics is not the one timed"
    assert row["static_files"]["base"]["state"] == "same cubin"


def test_join_keeps_rows_that_failed(corpus):
    build, _, doc = corpus
    row = rvs.join_row(doc["rows"][5], build, ["sass.instructions"])
    assert row["runtime"] is None and "could not launch" in row["error"]
    assert row["static_files"]["edit"]["state"] == "no metrics file"


def test_correlations_use_mutants_whose_static_side_was_timed(corpus):
    build, _, doc = corpus
    rows = [rvs.join_row(r, build, ["sass.instructions", "regs", "loop.main.ii"])
            for r in doc["rows"]]
    corr = rvs.correlations(rows, ["sass.instructions", "regs", "loop.main.ii"], False)
    s = corr["sass.instructions"]
    assert s["rows"] == ["m1.c", "m2.c", "m3.c"]      # no noop, no stale, no failed row
    assert s["rho"] == pytest.approx(1.0)               # 10/200/100 % against 10/150/90 %
    assert {x["id"]: x["why"] for x in s["left_out"]} == {
        "m4.c": "static metrics are not of the timed cubins", "m5.c": "not timed"}
    assert corr["regs"]["rho"] is None                  # all deltas tie at 0: no spread
    assert corr["loop.main.ii"]["n"] == 0 and corr["loop.main.ii"]["rho"] is None


def test_rows_breaking_assumptions_are_left_out_unless_asked(corpus):
    build, _, doc = corpus
    doc["rows"][0]["assumption_violations"] = {"base": ["argument 0: shape[0] = 4 ..."]}
    rows = [rvs.join_row(r, build, ["sass.instructions"]) for r in doc["rows"]]
    assert rvs.correlations(rows, ["sass.instructions"], False)["sass.instructions"]["n"] == 2
    assert rvs.correlations(rows, ["sass.instructions"], True)["sass.instructions"]["n"] == 3


def test_controls_spread(corpus):
    build, _, doc = corpus
    rows = [rvs.join_row(r, build, ["regs"]) for r in doc["rows"]]
    c = rvs.controls(rows)
    assert c["n"] == 1 and c["max_abs_pct"] == pytest.approx(0.4)


def test_main_writes_markdown_and_json(corpus, tmp_path):
    build, path, _ = corpus
    out = tmp_path / "out" / "report"
    assert rvs.main([str(path), "--build", str(build), "--out", str(out),
                     "--metrics", "sass.instructions,loop.main.ii"]) == 0
    md = (tmp_path / "out/report.md").read_text()
    doc = json.loads((tmp_path / "out/report.json").read_text())
    assert "| m2 | c | 1.0000 | 2.5000 | **+150.0%** |" in md
    assert "missing: metrics absent from the gate's metrics files: `loop.main.ii`" in md
    assert "m5.c: RuntimeError: could not launch" in md
    assert "--metrics sass.instructions,loop.main.ii" in doc["command"]
    assert doc["spearman"]["sass.instructions"]["rho"] == pytest.approx(1.0)
    assert doc["rows"][0]["static"]["loop.main.ii"]["delta_pct"] is None
    # Too few rows for a rank correlation of the estimate: n/a, not a crash.
    assert all(x["rho"] is None or isinstance(x["rho"], float) for x in doc["accuracy"].values())


def test_infinite_percentages_are_written_as_strings(tmp_path):
    assert rvs.json_safe({"a": [math.inf, -math.inf, 1.5]}) == {"a": ["inf", "-inf", 1.5]}


# ---------------------------------------------------------------------------
# The launch checks (tools/gpu/gate_launch.py): no GPU involved

try:
    import cuda.tile as ct
    from cuda.tile.compilation import CallingConvention, KernelSignature
    from tileperf_dump import array
    sys.path.insert(0, str(TOP / "tools/gpu"))
    import gate_launch as gl
except ImportError:  # the join tests above need none of this
    ct = None
needs_cutile = pytest.mark.skipif(ct is None, reason="cuda.tile is not installed")


def sig(params, cconv=None):
    return KernelSignature(params, cconv or CallingConvention.cutile_python_v2(), symbol="k")


class FakeArray:
    """An argument as cuTile sees a device array: __cuda_array_interface__."""
    def __init__(self, shape, ptr=0x10000, typestr="<f2", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


@needs_cutile
def test_abi_accepts_the_same_parameters_under_either_calling_convention():
    mat = array(ct.float16, 2)
    derived = array(ct.float16, 2, contiguous=True, shape_divisible_by=1)
    assert gl.check_abi(sig([mat, mat, 64]), sig([derived, derived, 64],
                                                  CallingConvention.cutile_python_v1())) == []


@needs_cutile
def test_abi_refuses_other_constants_dtypes_and_index_types():
    mat = array(ct.float16, 2)
    problems = gl.check_abi(sig([mat, mat, 64]), sig([array(ct.bfloat16, 2),
                                                      array(ct.float16, 2, index_dtype=ct.int64),
                                                      32]))
    assert any("dtype float16 in the configuration, bfloat16" in p for p in problems)
    assert any("index_dtype int32 in the configuration, int64" in p for p in problems)
    assert any("constant 64 in the configuration, 32" in p for p in problems)
    assert gl.check_abi(sig([mat, 64]), sig([mat, True])) != []  # 64 vs True: another type


@needs_cutile
def test_param_layout():
    assert gl.param_layout(sig([array(ct.float16, 2), 8])) == [8, 4, 4, 4, 4]
    assert gl.param_layout(sig([array(ct.float16, 1, index_dtype=ct.int64)])) == [8, 8, 8]


@needs_cutile
def test_args_meeting_the_assumptions_pass():
    mat = array(ct.float16, 2)
    a, b = FakeArray((64, 32), 0x10000), FakeArray((64, 32), 0x20000)
    assert gl.check_args(sig([mat, mat, 4]), (a, b, 4)) == []


@needs_cutile
def test_args_breaking_the_assumptions_are_named():
    mat = array(ct.float16, 2)
    problems = gl.check_args(sig([mat, mat, 4]),
                             (FakeArray((4, 32), 0x10002), FakeArray((64, 32), 0x20000), 5))
    assert any("base address 0x10002 is not a multiple of 16" in p for p in problems)
    assert any("shape[0] = 4 is not a multiple of 16" in p for p in problems)
    assert any("5 given, the configuration's constant is 4" in p for p in problems)
    # a transposed view: the last stride is not 1
    t = FakeArray((32, 64), 0x10000, strides=(2, 128))
    assert any("stride[1] is 64, the configuration fixes it to 1" in p
               for p in gl.check_args(sig([mat]), (t,)))


@needs_cutile
def test_args_overlapping_without_a_shared_alias_group_are_refused():
    mat = array(ct.float16, 2)
    a, b = FakeArray((64, 32), 0x10000), FakeArray((64, 32), 0x10000 + 64 * 32 * 2)
    assert gl.check_args(sig([mat, mat]), (a, b)) == []
    overlap = FakeArray((64, 32), 0x10000 + 2 * 32)
    assert any("overlap" in p for p in gl.check_args(sig([mat, mat]), (a, overlap)))
    shared = array(ct.float16, 2, alias_groups=("x",))
    assert gl.check_args(sig([shared, shared]), (a, overlap)) == []


def test_a_timing_set_is_reported_apart(tmp_path):
    """Validation rows of a set (the patch header's 'set:') get their own
    accuracy, before and after, beside every validation row's."""
    build = tmp_path / "build"
    base = b"base cubin"
    side(build, "tileperf/k", "c", {"cost.time_ns": 1000}, base)
    rows = []
    for name, est, ms, extra in (("v1", 1100, 1.2, {}), ("v2", 900, 0.8, {}),
                                 ("u1", 1000, 1.5, {"set": "unfitted"}),
                                 ("u2", 1200, 1.3, {"set": "unfitted"})):
        side(build, f"tileperf-selftest/{name}", "c", {"cost.time_ns": est}, name.encode())
        rows.append(timing_row(name, "validation", "c", 1.0, ms, base, name.encode(), **extra))
    path = tmp_path / "timing.json"
    path.write_text(json.dumps({"provenance": {"gpu": "Test GPU"}, "rows": rows}))
    predictions = tmp_path / "pred.json"
    predictions.write_text(json.dumps({"tileperf": "tileperf 0.1.0", "rows": {
        "u1.c": {"base": 1000, "edit": 1000}, "u2.c": {"base": 1000, "edit": 1200}}}))
    out = tmp_path / "report"
    assert rvs.main([str(path), "--build", str(build), "--out", str(out), "--metrics", "cost.time_ns",
                     "--predictions", str(predictions)]) == 0
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["accuracy"]["validation"]["n"] == 4
    assert doc["accuracy"]["set:unfitted"]["n"] == 2
    assert doc["accuracy"]["set:unfitted_before"]["n"] == 2
    assert doc["accuracy"]["set:unfitted_before"]["estimate_slower_passed"] == ["u1.c"]
    assert [r.get("set") for r in doc["rows"]] == [None, None, "unfitted", "unfitted"]
    md = (tmp_path / "report.md").read_text()
    assert "| set `unfitted`, as the model committed before their timing predicted them | 2 |" in md
    assert "| set `unfitted`, the model now | 2 |" in md


def test_predictions_of_several_files_are_joined(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps({"tileperf": "tileperf 0.1.0", "rows": {"v1.c": {"base": 1, "edit": 2}}}))
    second.write_text(json.dumps({"tileperf": "tileperf 0.1.0", "rows": {"u1.c": {"base": 3, "edit": 4}}}))
    joined = rvs.merged_predictions([first, second])
    assert joined == {"tileperf": "tileperf 0.1.0",
                      "rows": {"v1.c": {"base": 1, "edit": 2}, "u1.c": {"base": 3, "edit": 4}}}
    second.write_text(json.dumps({"rows": {"v1.c": {"base": 1, "edit": 5}}}))
    with pytest.raises(SystemExit, match="row v1.c differs"):
        rvs.merged_predictions([first, second])
