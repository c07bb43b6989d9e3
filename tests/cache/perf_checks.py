"""The perf tests' checks as the CMake API registered them in a build.

Each perf test runs `tileperf check --run-file RUN --test NAME`; the rest of
what the check reads comes from the run record (RUN: the toolchain record)
and from its kernel's record (<work>/<kernel>/configs.json: the bytecode).
perf_checks() lists them with those facts, for the tests that run the same
checks into folders of their own (`command_in(folder)`).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class PerfCheck:
    name: str
    kernel: str
    config: str
    arch: str
    command: list[str]
    bytecode: str
    toolchain: str

    def command_in(self, folder: Path) -> list[str]:
        """The check, writing its outputs into `folder` instead of the build's."""
        return self.command + ["--work-dir", str(folder)]


def _option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def perf_checks(build: Path, *selection: str) -> list[PerfCheck]:
    """The perf tests ctest selects in `build` with `selection` (-L perf, -R x)."""
    out = subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1", *selection],
                         check=True, capture_output=True, text=True).stdout
    checks, records = [], {}
    for test in json.loads(out)["tests"]:
        command = test.get("command", [])
        if not test["name"].startswith("perf.") or len(command) < 2 or command[1] != "check":
            continue
        run_file = _option(command, "--run-file")
        run = json.loads(Path(run_file).read_text())
        _, kernel, config, arch = _option(command, "--test").split(".")
        kernel_record = Path(run["work_dir"]) / kernel / "configs.json"
        if kernel_record not in records:
            records[kernel_record] = json.loads(kernel_record.read_text())
        entry = next(t for t in records[kernel_record]["tests"] if t["test"] == test["name"])
        checks.append(PerfCheck(test["name"], kernel, config, arch, command, entry["bytecode"],
                                run["toolchain"]))
    return checks
