"""The reader of a kernel inventory (tileperf_dump.workloads) on any bytes.

    python workloads_fuzz.py --replay DIR...     # each file of the folders, once
    python workloads_fuzz.py [libFuzzer options] # fuzzing, with atheris (tests/fuzz/run.sh workloads)

An input is a Definition's file, a NUL byte, a workload.jsonl, a NUL byte,
a Solution's file (missing parts are empty). Each part must be read or
refused with a ValueError that names its file; any other exception, or a
ValueError that names no file, is a finding. The replay is the test
fuzz.replay.workloads: a folder without inputs is an error (exit 2), as in
tests/fuzz/replay.cpp.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

DEFINITION = Path("m/kernel_definitions/op.json")
WORKLOADS = Path("m/kernel_workloads/op/workload.jsonl")
SOLUTION = Path("m/kernel_solutions/op.json")


def refused(error: ValueError, path: Path) -> None:
    if not str(error).startswith(f"{path}:"):
        raise AssertionError(f"the error names no file: {error}") from error


def one_input(data: bytes) -> None:
    from tileperf_dump.workloads import parse_definition, parse_solution, parse_workloads
    definition_bytes, _, rest = data.partition(b"\0")
    workload_bytes, _, solution_bytes = rest.partition(b"\0")
    try:
        parse_solution(solution_bytes, SOLUTION)
    except ValueError as e:
        refused(e, SOLUTION)
    try:
        definition = parse_definition(definition_bytes, DEFINITION)
    except ValueError as e:
        refused(e, DEFINITION)
        return
    try:
        parse_workloads(workload_bytes, WORKLOADS, definition)
    except ValueError as e:
        refused(e, WORKLOADS)


def replay(folders: list[str]) -> int:
    files = []
    for folder in folders:
        found = sorted(p for p in Path(folder).rglob("*") if p.is_file())
        if not found:
            print(f"replay: {folder}: no inputs")
            return 2
        files += found
    for f in files:
        print(f, flush=True)  # the last one named is the culprit
        one_input(f.read_bytes())
    print(f"{len(files)} inputs replayed: no crash, every error named its file")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--replay"]:
        return replay(argv[1:])
    import atheris
    with atheris.instrument_imports():
        import tileperf_dump.workloads  # noqa: F401 (instrumented for coverage, then used by one_input)
    atheris.Setup([sys.argv[0]] + argv, one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
