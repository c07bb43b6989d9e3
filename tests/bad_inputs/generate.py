#!/usr/bin/env python3
"""Writes the bad-input corpus of the command-line tests (tests/bad_inputs/),
each file a captured fixture or a shipped file with one thing broken.

    python3 tests/bad_inputs/generate.py

BadInputTests.cmake runs tileperf on each and checks its exit code and that
its message names the file and the place."""
import copy
import json
import pathlib
import struct

here = pathlib.Path(__file__).resolve().parent
top = here.parent.parent
fixtures = top / "tests" / "fixtures" / "13.4.92"


def write(rel, data):
    path = here / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def lines_of(name):
    return (fixtures / name).read_text().split("\n")


# --- SASS listings (extract --sass)
sass = lines_of("gelu.f16_1024.sm_120.sass")
first_insn = next(i for i, l in enumerate(sass) if l.strip().startswith("/*0000*/"))
write("sass/garbage_line.sass", "\n".join(sass[:12] + ["        /*0050*/   THIS IS NOT SASS"] + sass[12:]))
write("sass/truncated.sass", "\n".join(sass[:40]) + "\n")
write("sass/missing_control_word.sass", "\n".join(sass[:first_insn + 1] + sass[first_insn + 2:]))
pred = next(i for i, l in enumerate(sass) if "@P0" in l)
write("sass/bad_predicate.sass", "\n".join(sass[:pred] + [sass[pred].replace("@P0", "@Q9", 1)] + sass[pred + 1:]))
swapped = list(sass)
swapped[first_insn + 2] = swapped[first_insn + 2].replace("/*0010*/", "/*0000*/", 1)
write("sass/address_backwards.sass", "\n".join(swapped))
write("sass/no_functions.sass", "\n".join(sass[:first_insn - 3]) + "\n")
code_for = next(i for i, l in enumerate(sass) if "code for" in l)
write("sass/mixed_arch.sass", "\n".join(sass + [sass[code_for].replace("sm_120a", "sm_90a")]))
write("sass/long_line.sass", "\n".join(sass[:12] + ["        /*0050*/ " + "(" * 100000] + sass[12:]))
write("sass/end_marker_first.sass", "\n".join(sass[:code_for + 1] + ["        .........."] + sass[code_for + 1:]))

# --- resource usage (extract --res-usage)
res = lines_of("gelu.f16_1024.sm_120.res-usage.txt")
fn = next(i for i, l in enumerate(res) if "Function" in l)
write("res-usage/cut_after_function.txt", "\n".join(res[:fn + 1]) + "\n")
write("res-usage/missing_reg.txt", "\n".join(res[:fn + 1] + [" REG" .join(res[fn + 1].split("REG")).replace(" REG:", " XREG:", 1)] + res[fn + 2:]))
values = res[fn + 1]
reg = values[values.index("REG:"):].split()[0]
write("res-usage/huge_value.txt", "\n".join(res[:fn + 1] + [values.replace(reg, "REG:99999999999999999999999", 1)] + res[fn + 2:]))
write("res-usage/garbage.txt", "Resource usage:\n garbage here\n")
write("res-usage/long_line.txt", "Resource usage:\n Common:\n  " + "GLOBAL:0 " * 20000 + "X\n")
write("res-usage/no_functions.txt", "Resource usage:\n Common:\n  GLOBAL:0\n")
write("res-usage/bad_index.txt", "\n".join(res[:fn + 1] + [values + " CONSTANT[x]:8"] + res[fn + 2:]))

# --- cubins (extract --cubin)
cubin = (fixtures / "gelu.f16_1024.sm_120.cubin").read_bytes()
shoff, = struct.unpack_from("<Q", cubin, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3a)


def patched(offset, fmt, value, data=cubin):
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def section_header(i):
    return shoff + i * shentsize


write("cubin/truncated_half.cubin", cubin[:len(cubin) // 2])
write("cubin/not_elf.cubin", "this is a text file, not a cubin\n")
write("cubin/elf32.cubin", patched(4, "<B", 1))
write("cubin/shoff_huge.cubin", patched(0x28, "<Q", 2**64 - 16))
write("cubin/shstrndx_out_of_range.cubin", patched(0x3e, "<H", shnum))
write("cubin/strtab_nobits.cubin", patched(section_header(shstrndx) + 4, "<I", 8))
write("cubin/section_past_end.cubin", patched(section_header(1) + 0x20, "<Q", 2**63))
write("cubin/small_header_entries.cubin", patched(0x3a, "<H", 32))


# --- line tables (loops <cubin> --sass): .debug_line of the gelu cubin broken
def section_named(name):
    strtab_off, = struct.unpack_from("<Q", cubin, section_header(shstrndx) + 0x18)
    for i in range(shnum):
        name_off, = struct.unpack_from("<I", cubin, section_header(i))
        end = cubin.index(b"\0", strtab_off + name_off)
        if cubin[strtab_off + name_off:end].decode() == name:
            off, = struct.unpack_from("<Q", cubin, section_header(i) + 0x18)
            return off
    raise SystemExit(name + " not found")


line = section_named(".debug_line")
write("line-table/version.cubin", patched(line + 4, "<H", 9))
write("line-table/unit_length.cubin", patched(line, "<I", 0xfffffff0))
write("line-table/header_length.cubin", patched(line + 6, "<I", 0x7ffffff0))
write("line-table/line_range_zero.cubin", patched(line + 6 + 4 + 3, "<B", 0))

# --- remarks (extract --remarks)
remarks = (fixtures / "gelu.f16_1024.sm_120.remarks.yaml").read_text()
doc = remarks[:remarks.index("...\n") + 4]
write("remarks/truncated.yaml", remarks[:remarks.rindex("...")])
write("remarks/invalid_yaml.yaml", doc + doc.replace("Pass:            Memory", "Pass: [unclosed"))
write("remarks/no_name.yaml", doc + "\n".join(l for l in doc.split("\n") if not l.startswith("Name:")))
write("remarks/args_not_list.yaml", doc + "--- !Passed\nName: X\nFunction: f\nArgs: 3\n...\n")
write("remarks/line_not_a_number.yaml", doc + doc.replace("Line: 19", "Line: nineteen"))
write("remarks/stray_comma.yaml", doc + "--- !Passed\n,\n...\n" + doc)
write("remarks/nested_deep.yaml", doc + "--- !Passed\nName: " + "[" * 100 + "]" * 100 + "\n...\n")
write("remarks/two_starts.yaml", doc.replace("...\n", "") + doc)
write("remarks/key_not_scalar.yaml", doc + "--- !Passed\nName: X\nFunction: f\nArgs:\n  - [a]: b\n...\n")

# --- TileIR (extract --tileir)
tileir = lines_of("gelu.f16_1024.tileir")
body = next(i for i, l in enumerate(tileir) if l.strip().startswith("%"))
write("tileir/garbage_line.tileir", "\n".join(tileir[:body] + ["  @@@ not an operation"] + tileir[body:]))
last_close = max(i for i, l in enumerate(tileir) if l.strip() == "}")
write("tileir/unclosed.tileir", "\n".join(tileir[:last_close] + tileir[last_close + 1:]))
write("tileir/extra_close.tileir", "\n".join(tileir + ["}"]))
write("tileir/outside_entry.tileir", "%0 = make_token : token\n" + "\n".join(tileir))
write("tileir/long_line.tileir", "\n".join(tileir[:body] + ["    %" + "%" * 100000] + tileir[body:]))
entry = next(i for i, l in enumerate(tileir) if l.startswith("entry"))
write("tileir/entry_in_region.tileir", "\n".join(tileir[:body] + [tileir[entry]] + tileir[body:]))
write("tileir/nested_deep.tileir", "\n".join(tileir[:body] + ["  %c = constant <i1: true> : tile<i1>"]
                                             + ["  if %c {"] * 70 + ["  }"] * 70 + tileir[body:]))
write("tileir/results_per_line.tileir",
      "\n".join(tileir[:body] + ["  %a:65536 = get_tile_block_id : tile<i32>"] + tileir[body:]))
write("tileir/literal_overflow.tileir",
      "\n".join(tileir[:body] + ["  %m = constant <i64: 99999999999999999999999> : tile<i64>"] + tileir[body:]))

# --- metrics and baselines (compare)
base = json.loads((top / "tests" / "compare" / "baseline.json").read_text())


def metrics(name, change):
    m = copy.deepcopy(base)
    change(m)
    write("metrics/" + name, json.dumps(m, indent=2, sort_keys=True) + "\n")


metrics("fraction.json", lambda m: m["metrics"].update({"regs": 27.9}))
metrics("huge.json", lambda m: m["metrics"].update({"regs": 1e20}))
metrics("negative.json", lambda m: m["metrics"].update({"regs": -5}))
metrics("string_value.json", lambda m: m["metrics"].update({"regs": "many"}))
metrics("unsigned_max.json", lambda m: m["metrics"].update({"regs": 2**64 - 1}))
metrics("bad_kernel_name.json", lambda m: m.update({"kernel": "../../etc/passwd"}))
metrics("missing_metrics.json", lambda m: m.pop("metrics"))
metrics("metrics_not_object.json", lambda m: m.update({"metrics": [1, 2]}))
text = json.dumps(base, indent=2, sort_keys=True) + "\n"
write("metrics/duplicate_key.json", text.replace('"regs": 27,', '"regs": 27,\n    "regs": 40,'))
write("metrics/number_overflow.json", text.replace('"regs": 27', '"regs": 1e400'))
write("metrics/nested_deep.json", text.replace('"flags": {}', '"flags": ' + "[" * 100000 + "]" * 100000))
write("metrics/syntax.json", text.replace('"kernel": "gelu"', '"kernel" "gelu"'))
write("metrics/not_object.json", "[]\n")

# --- policies (compare --checks <folder>)
default = json.loads((top / "checks" / "default.json").read_text())


def policy(name, file, text):
    write(f"policy/{name}/{file}", text)
    if file != "default.json":
        write(f"policy/{name}/default.json", '{"rules": [{"metric": "*", "direction": "info"}]}\n')


def default_rule(name, change):
    d = copy.deepcopy(default)
    change(d["rules"][0])
    policy(name, "default.json", json.dumps(d, indent=2) + "\n")


default_rule("empty_pattern", lambda r: r.update({"metric": ""}))
default_rule("malformed_pattern", lambda r: r.update({"metric": "sass..mufu"}))
default_rule("bad_tolerance", lambda r: r.update({"tolerance": "five"}))
default_rule("huge_tolerance", lambda r: r.update({"tolerance": "99999999999999999999"}))
default_rule("bad_direction", lambda r: r.update({"direction": "sideways"}))
policy("bad_require", "gelu.json", '{"invariants": [{"require": "regs = 0"}]}\n')
policy("require_overflow", "gelu.json", '{"invariants": [{"require": "regs <= 99999999999999999999"}]}\n')
policy("unknown_key", "gelu.json", '{"rule": []}\n')
policy("duplicate_key", "gelu.json", '{"rules": [], "rules": []}\n')
policy("kernel_file_is_folder", "gelu.json/placeholder", "")

# --- results (summary <folder>)
result = json.loads((top / "tests" / "fixtures" / "results" / "run" / "gelu.f16_1024.sm_120.result.json").read_text())


def bad_result(name, change):
    r = copy.deepcopy(result)
    change(r)
    write(f"result/{name}/gelu.f16_1024.sm_120.result.json", json.dumps(r, indent=2) + "\n")


bad_result("key_metric_fraction", lambda r: r["key_metrics"].update({"regs": 2.5}))
bad_result("diff_not_object", lambda r: r.update({"diff": [3]}))
bad_result("diff_delta_string", lambda r: r.update({"diff": [{"metric": "regs", "delta": "x"}]}))
bad_result("state_not_string", lambda r: r.update({"state": 5}))
bad_result("missing_exit_code", lambda r: r.pop("exit_code"))
bad_result("bad_kernel_name", lambda r: r.update({"kernel": "a b"}))
bad_result("state_unknown", lambda r: r.update({"state": "<script>alert(1)</script>"}))
bad_result("seconds_string", lambda r: r["seconds"].update({"compile": "slow"}))
write("result/not_object/gelu.f16_1024.sm_120.result.json", "[]\n")

# --- dump records' problems (extract --dump-info)
record = json.loads((fixtures / "matmul.f16_128x128x64.dump.json").read_text())


def problem(name, change):
    r = copy.deepcopy(record)
    change(r["problem"])
    write("problem/" + name, json.dumps(r, indent=2) + "\n")


problem("grid_zero.json", lambda p: p.update({"grid": [0]}))
problem("grid_overflow.json", lambda p: p.update({"grid": [2**31 - 1, 2**31 - 1, 2**31 - 1]}))
problem("trips_fraction.json", lambda p: p["trips"][0].update({"trips": 12.5}))
problem("line_huge.json", lambda p: p["trips"][0].update({"lines": [10**12]}))
problem("no_grid.json", lambda p: p.pop("grid"))
problem("grid_rank.json", lambda p: p.update({"grid": [2, 2, 2, 2]}))


# --- dump records of another version, or with a field of the wrong type
# (extract --dump-info)
def dump_record(name, change):
    r = copy.deepcopy(record)
    change(r)
    write("dump-record/" + name, json.dumps(r, indent=2) + "\n")


dump_record("no_format.json", lambda r: r.pop("format"))
dump_record("other_format.json", lambda r: r.update({"format": "tileperf-dump-record/2"}))
dump_record("signature_number.json", lambda r: r.update({"signature": 5}))
dump_record("symbol_list.json", lambda r: r.update({"symbol": []}))
dump_record("problem_string.json", lambda r: r.update({"problem": "x"}))
dump_record("arch_problem_string.json", lambda r: r.update({"archs": {"sm_90": {"problem": "x"}}}))

# --- a configuration for `tileperf check` with the fake tools (bytecode
# and dump record; the fake tileiras does not read the bytecode)
write("check/f16_1024.tileirbc", "bytecode stand-in: the fake tileiras does not read it\n")
write("check/f16_1024.tileirbc.json", json.dumps({"format": "tileperf-dump-record/1", "bytecode_version": "13.4", "config": "f16_1024", "cuda_tile": "1.7.0", "kernel": "gelu", "seconds": 0.0, "signature": {"symbol": "gelu"}}, indent=2) + "\n")

# --- a result whose texts are markup: the HTML report must escape each
markup = copy.deepcopy(result)
markup["message"] = "<script>alert(1)</script>"
markup["notes"] = ["<script>alert(2)</script>"]
markup["diff"][0]["metric"] = "<script>alert(3)</script>"
markup["broken"] = [{"require": "<script>alert(4)</script>", "metric": "x", "why": "<b>", "origin": "o", "found": "&"}]
write("html_state/gelu.f16_1024.sm_120.result.json", json.dumps(markup, indent=2) + "\n")
