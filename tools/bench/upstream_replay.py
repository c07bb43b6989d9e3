#!/usr/bin/env python3
"""Replays real upstream changes of the libraries' cuTile kernels through the gate.

Each change of tools/bench/upstream_changes.json is a patch of one module of
an installed library (FlashInfer or TileGym), stored under
tools/bench/upstream_changes/ with the hunks of that module alone. The module
before the change (base) and after it (edit) are both made from the installed
package's file: a change the installed release already has is reverted to make
the base ("direction": "revert"), a later one is applied to make the edit
("direction": "apply"). Each is put in a copy of the package that links to
every other file of the installed one, the library's example is configured
against the base with its baselines written to a scratch folder, then against
the edit, whose perf tests are judged against those baselines.

The table (Markdown) goes to stdout, or to --out. Every test of the
configuration files named by the change (and matching its "tests" regex) is
run; a row is printed for each test whose metrics or signature moved.

    .venv/bin/python tools/bench/upstream_replay.py [--only ID,...] [--out FILE]

Environment: TILEPERF_BUILD (tileperf's build folder, default build/),
TILEPERF_PYTHON (default .venv/bin/python), WORK (scratch, default
/tmp/tileperf-upstream-replay), JOBS (ctest -j, default 1).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
CHANGES = SOURCE / "tools/bench/upstream_changes.json"
PATCHES = SOURCE / "tools/bench/upstream_changes"
COUNTS = ("sass.instructions", "sass.mufu", "loop.main.ii", "loop.all.ii")
# cost.time_ns's limit (checks/): a smaller move is no verdict of the estimate's.
COST_LIMIT_PCT = 2.0


def run(cmd, log, env=None, check=True):
    with open(log, "a") as out:
        out.write("$ " + " ".join(map(str, cmd)) + "\n")
        out.flush()
        rc = subprocess.run(["nice", "-n", "10", *map(str, cmd)], stdout=out, stderr=subprocess.STDOUT,
                            env=env).returncode
    if check and rc != 0:
        sys.exit(f"upstream_replay: failed ({rc}): {' '.join(map(str, cmd))}; see {log}")
    return rc


def installed_package(python, name):
    return Path(subprocess.check_output(
        [python, "-c", "import importlib.util as u, sys; "
         "print(u.find_spec(sys.argv[1]).submodule_search_locations[0])", name], text=True).strip())


def package_copy(installed, tree, module, text):
    """tree/<package> links to every entry of the installed package but the
    folders down to <module>, and <module> holds text."""
    src, dst = installed, tree / installed.name
    if tree.exists():
        shutil.rmtree(tree)
    for part in module.split("/"):
        dst.mkdir(parents=True, exist_ok=True)
        for entry in src.iterdir():
            if entry.name != part:
                (dst / entry.name).symlink_to(entry)
        src, dst = src / part, dst / part
    dst.write_text(text)


def patched(original, patch, reverse, work):
    out = work / "patched.py"
    cmd = ["patch", "-s", "-o", str(out), str(original), str(patch)]
    if reverse:
        cmd.insert(1, "-R")
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        sys.exit(f"upstream_replay: {patch.name} does not apply to {original}")
    return out.read_text()


def gate_run(change, folder, tree, baselines, prefix, python, jobs, update, log):
    lib = change["library"]
    build = folder
    if build.exists():
        shutil.rmtree(build)
    run(["cmake", "-S", SOURCE / "examples" / lib, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DTILEPERF_PYTHON={python}", f"-D{lib.upper()}_PATH={tree}",
         f"-D{lib.upper()}_KERNELS={';'.join(change['configs'])}", f"-DTILEPERF_BASELINE_DIR={baselines}"], log)
    env = dict(os.environ)
    for var in ("TILEPERF_UPDATE_BASELINES", "TILEPERF_FILTER", "TILEPERF_LABEL"):
        env.pop(var, None)
    if update:
        env["TILEPERF_UPDATE_BASELINES"] = "1"
    cmd = ["ctest", "--test-dir", build, "-L", "^perf$", "-j", str(jobs)]
    if change.get("tests"):
        cmd += ["-R", change["tests"]]
    run(cmd, log, env=env, check=False)


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def sign(x):
    return (x > 0) - (x < 0)


def pct(a, b):
    return f"{(b - a) / a * 100:+.1f}%" if a else ("+inf%" if b else "0")


def same_file(a, b):
    return a.exists() and b.exists() and a.read_bytes() == b.read_bytes()


def judge(change, base_build, edit_build):
    """One row per test of the edit build whose metrics or signature moved,
    and what the others share (bytecode, cubin)."""
    rows, total, bytecode_moved = [], 0, 0
    for result_path in sorted((edit_build / "tileperf").glob("*/*.result.json")):
        result = load(result_path)
        if not result:
            continue
        total += 1
        folder = result_path.parent.name
        stem = result_path.name[: -len(".result.json")]
        config = stem.rsplit(".", 1)[0]
        rel = folder + "/" + stem + ".metrics.json"
        base_result = load(base_build / "tileperf" / folder / result_path.name) or {}
        if base_result.get("state") not in ("created", "updated", "unchanged"):
            rows.append({"test": result["test"], "state": "not judged",
                         "message": f"the base: {base_result.get('state')}: {base_result.get('message', '')}",
                         "cost": "", "counts": "", "agree_counts": "", "agree_intent": ""})
            continue
        base, edit = load(base_build / "tileperf" / rel), load(edit_build / "tileperf" / rel)
        if not base or not edit:
            rows.append({"test": result["test"], "state": result["state"], "message": result["message"],
                         "cost": "", "counts": "no metrics", "agree_counts": "", "agree_intent": ""})
            continue
        bm, em = base["metrics"], edit["metrics"]
        if bm == em and base.get("signature") == edit.get("signature"):
            names = [f"{config}.{result['arch']}.tileirbc", f"{config}.tileirbc"]
            bytecode = next((n for n in names if (base_build / "tileperf" / folder / n).exists()), names[1])
            if not same_file(base_build / "tileperf" / folder / bytecode, edit_build / "tileperf" / folder / bytecode):
                bytecode_moved += 1
            continue
        cost = (bm.get("cost.time_ns", 0), em.get("cost.time_ns", 0))
        counts = {k: (bm.get(k, 0), em.get(k, 0)) for k in COUNTS}
        moved = {k: v for k, v in counts.items() if v[0] != v[1]}
        change_pct = (cost[1] - cost[0]) / cost[0] * 100 if cost[0] else 0
        cost_dir = sign(change_pct) if abs(change_pct) >= COST_LIMIT_PCT else 0
        count_dirs = {sign(b - a) for a, b in moved.values()}
        if not moved:
            agree_counts = "no count moved"
        elif cost_dir == 0:
            agree_counts = "cost within limit"
        elif count_dirs == {cost_dir}:
            agree_counts = "yes"
        elif cost_dir in count_dirs:
            agree_counts = "mixed"
        else:
            agree_counts = "no"
        intent = change.get("intent")
        if intent == "faster":
            agree_intent = {-1: "yes", 0: "within limit", 1: "no"}[cost_dir]
        else:
            agree_intent = "n/a (" + intent + ")"
        shown = dict(moved)
        if bm.get("regs") != em.get("regs"):
            shown["regs"] = (bm.get("regs"), em.get("regs"))
        rows.append({
            "test": result["test"], "state": result["state"],
            "message": re.sub(r"[;:] (if intended, )?(accept|tighten|record)[^:]*with: .*$", "",
                              result["message"].split("\n")[0]),
            "cost": f"{cost[0]} -> {cost[1]} ({pct(*cost)})",
            "counts": ", ".join(f"{k.replace('sass.', '')} {a} -> {b}" for k, (a, b) in shown.items()) or "none",
            "agree_counts": agree_counts, "agree_intent": agree_intent,
        })
    return rows, total, bytecode_moved


def cell(text, width=None):
    text = str(text).replace("|", "\\|")
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated ids of the changes to replay (default: all)")
    parser.add_argument("--out", help="write the Markdown table to this file (default: stdout)")
    parser.add_argument("--changes", default=str(CHANGES), help="the JSON list of changes")
    parser.add_argument("--judge-only", action="store_true",
                        help="judge the base and edit builds an earlier run left in WORK, without building")
    args = parser.parse_args()
    build = Path(os.environ.get("TILEPERF_BUILD", SOURCE / "build")).resolve()
    python = os.environ.get("TILEPERF_PYTHON", str(SOURCE / ".venv/bin/python"))
    work = Path(os.environ.get("WORK", "/tmp/tileperf-upstream-replay")).resolve()
    jobs = int(os.environ.get("JOBS", "1"))
    changes = json.loads(Path(args.changes).read_text())
    if args.only:
        wanted = set(args.only.split(","))
        changes = [c for c in changes if c["id"] in wanted]
    work.mkdir(parents=True, exist_ok=True)
    prefix = work / "prefix"
    if not args.judge_only:
        run(["cmake", "--install", build, "--prefix", prefix], work / "install.log")

    summary = ["| change | subject | module | intent (stated) | tests run | moved | states |",
               "| --- | --- | --- | --- | ---: | ---: | --- |"]
    lines = ["| change | test | state | cost.time_ns | counts that moved | cost vs counts | cost vs intent |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    details = []
    for change in changes:
        folder = work / change["id"]
        folder.mkdir(parents=True, exist_ok=True)
        log = folder / "log.txt"
        if not args.judge_only:
            log.write_text("")
        print(f"upstream_replay: {change['id']} ({change['library']} {change['module']})", file=sys.stderr)
        installed = installed_package(python, change["library"])
        original = installed / change["module"]
        other = patched(original, PATCHES / change["patch"], change["direction"] == "revert", folder)
        text = original.read_text()
        base_text, edit_text = (other, text) if change["direction"] == "revert" else (text, other)
        package_copy(installed, folder / "base-tree", change["module"], base_text)
        package_copy(installed, folder / "edit-tree", change["module"], edit_text)
        baselines = folder / "baselines"
        if not args.judge_only:
            if baselines.exists():
                shutil.rmtree(baselines)
            gate_run(change, folder / "base", folder / "base-tree", baselines, prefix, python, jobs, True, log)
            gate_run(change, folder / "edit", folder / "edit-tree", baselines, prefix, python, jobs, False, log)
        rows, total, bytecode_moved = judge(change, folder / "base", folder / "edit")
        label = f"{change['repo']}@{change['commit']}"
        states = {}
        for row in rows:
            states[row["state"]] = states.get(row["state"], 0) + 1
        state_text = ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
        moved = sum(row["state"] != "not judged" for row in rows)
        if total - len(rows):
            state_text += (", " if state_text else "") + f"{total - len(rows)} unmoved"
            if bytecode_moved:
                state_text += f" ({bytecode_moved} with other bytecode, the same cubin)"
        summary.append(f"| {label} | {cell(change['subject'])} | `{change['module']}` | "
                       f"{change['intent']}: {cell(change['claim'])} | {total} | {moved} | {state_text} |")
        for row in rows:
            lines.append(f"| {change['id']} | {row['test']} | {row['state']} | {row['cost']} | "
                         f"{cell(row['counts'])} | {row['agree_counts']} | {row['agree_intent']} |")
            message = row["message"].replace(str(SOURCE) + "/", "")
            details.append(f"- `{row['test']}`: {cell(row['state'] + ': ' + message, 300)}")
        print(f"upstream_replay: {change['id']}: {moved} of {total} tests moved", file=sys.stderr)
    text = ("\n".join(summary) + "\n\nThe tests that moved:\n\n" + "\n".join(lines)
            + "\n\nTheir messages (the first line):\n\n" + "\n".join(details) + "\n")
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
