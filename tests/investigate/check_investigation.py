"""investigate.gelu: `tileperf investigate` on a shipped test with the real
tools. Each variant kind changes what it says: the isolated tanh is gone
from the variant's SASS and nothing else is isolated; the token-free variant
has fewer token operations; every row has an estimate and a rank or its
error; the record is written beside the test's results; a second run finds
every compilation in the result cache.

    python3 check_investigation.py TILEPERF BUILD_DIR TEST
    python3 check_investigation.py --library TILEPERF BUILD_DIR TEST

With --library, a configuration a library launches with its own code
(FlashInfer's): its variants are made at export without editing the
library, its lines are keyed by module path, and a tuning variant goes
through the library's own launch and tuning space (a constant moves).
Exits 77 (skipped) when the library's build has no run yet.
"""

import json
import subprocess
import sys
from pathlib import Path


def run(tileperf: str, build: str, test: str) -> dict:
    r = subprocess.run([tileperf, "investigate", test, "--build-dir", build, "--json"],
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit(f"tileperf investigate exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return json.loads(r.stdout)


def library(tileperf: str, build: str, test: str) -> int:
    if not (Path(build) / "tileperf" / "run.json").exists():
        print(f"{build}: the library's gate has not run: skipped")
        return 77
    j = run(tileperf, build, test)
    failures = []
    isolated = [r for r in j["variants"] if r["kind"] == "isolate"]
    if not isolated or not all(r["where"].startswith(("flashinfer/", "tilegym/")) for r in isolated):
        failures.append("isolations keyed by the library's module path")
    tune = [r for r in j["variants"] if r["kind"] == "tune" and "rank" in r]
    if not any(any(k.startswith("parameters[") for k in r["changes"].get("constants", {})) for r in tune):
        failures.append("a tuning variant through the library's launch moves a constant")
    if j["base"]["time_ns"] <= 0:
        failures.append("the base has an estimate")
    for f in failures:
        print(f"FAILED: {f}")
    print(f"{test}: {len(j['variants'])} variant(s), {len(tune)} tuned; {len(failures)} failure(s)")
    return 1 if failures else 0


def main() -> int:
    if sys.argv[1] == "--library":
        return library(*sys.argv[2:5])
    tileperf, build, test = sys.argv[1:4]
    _, kernel, config, arch = test.split(".")
    first = run(tileperf, build, test)
    base = first["base"]
    work = Path(build) / "tileperf" / kernel
    variants = work / "variants" / f"{config}.{arch}"
    failures = []

    def expect(ok: bool, what: str) -> None:
        if not ok:
            failures.append(what)

    expect(base["time_ns"] > 0, "the base has an estimate")
    for r in first["variants"]:
        expect(("error" in r) != ("rank" in r and r["time_ns"] > 0), f"{r['id']}: an estimate and a rank, or an error")
    ranked = [r for r in first["variants"] if "rank" in r]
    expect([r["rank"] for r in ranked] == list(range(1, len(ranked) + 1)), "ranks 1..n")
    expect(all(a["change"] <= b["change"] for a, b in zip(ranked, ranked[1:])), "best estimate first")

    base_sass = (variants / f"base.{arch}.sass").read_text()
    tanh = [r for r in first["variants"] if r["kind"] == "isolate" and "tanh" in r["what"]]
    expect(len(tanh) == 1, "one isolation of the tanh")
    if tanh:
        sass = (variants / f"{tanh[0]['id']}.{arch}.sass").read_text()
        expect("MUFU.TANH" in base_sass and "MUFU.TANH" not in sass, "MUFU.TANH is gone from the isolated variant")
        expect(tanh[0]["mufu"] < base["mufu"], "the isolated variant has fewer MUFU")
    tokens = [r for r in first["variants"] if r["kind"] == "token_order"]
    expect(len(tokens) == 1 and tokens[0]["tokens"] < base["tokens"], "token order off: fewer token operations")
    expect(any("Safe only if the correctness test passes" in f for f in first["findings"]), "token order's caveat")
    expect(any(f.startswith("registers:") for f in first["findings"]), "the register pressure finding")
    tune = [r for r in first["variants"] if r["kind"] == "tune"]
    expect(len(tune) == 2, "the tile halved and doubled")
    record = work / f"{config}.{arch}.investigation.json"
    expect(json.loads(record.read_text())["test"] == test, "the record beside the results")

    second = run(tileperf, build, test)
    measured = 1 + sum(1 for r in second["variants"] if "error" not in r)
    expect(second["cached"] == measured, f"a second run: every compilation from the cache "
                                         f"({second['cached']} of {measured})")
    expect([r.get("time_ns") for r in second["variants"]] == [r.get("time_ns") for r in first["variants"]],
           "a second run: the same estimates")
    for f in failures:
        print(f"FAILED: {f}")
    print(f"{test}: {len(first['variants'])} variant(s); {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
