"""What the registrations hand CMake: values as CMake arguments, and the
command line of the dump step. Imports no cuTile, and little else, so that
the self-tests' registration (tests/edits/edits.py) starts fast."""

import os
import re
from pathlib import Path

PYTHON_DIR = Path(os.path.abspath(__file__)).parent.parent  # the folder above tileperf_dump


def cmake_quoted(value) -> str:
    """A CMake argument holding ``value`` as it is, whatever it holds: the
    word itself when it has nothing CMake would read, else a bracket
    argument whose closing bracket appears nowhere before its end (a value
    ending in "]" or "]=" included), or a quoted argument with escapes for
    a value that starts with a newline (which a bracket argument drops) or
    holds a carriage return."""
    value = str(value)
    if re.fullmatch(r"[A-Za-z0-9_.,:/+=-]+", value):
        return value
    if value.startswith("\n") or "\r" in value:  # CMake reads a carriage return in a list file as nothing
        escaped = value.translate({ord("\\"): "\\\\", ord('"'): '\\"', ord("$"): "\\$", ord("\r"): "\\r",
                                   ord("\n"): "\\n"})
        return f'"{escaped}"'
    level = next(n for n in range(len(value) + 2)
                 if (value + f"]{'=' * n}]").find(f"]{'=' * n}]") == len(value))
    return f"[{'=' * level}[{value}]{'=' * level}]"


def cmake_set(name: str, *values) -> str:
    return f"set({' '.join([name, *map(cmake_quoted, values)])})\n"


def cmake_checks(prefix: str, checks: list[dict]) -> str:
    """``<prefix><test>`` set to the CONFIG, ARCH, BYTECODE and BASELINE of
    each check, as the registrations parse them."""
    return "".join(cmake_set(prefix + c["test"], "CONFIG", c["config"], "ARCH", c["arch"],
                             "BYTECODE", c["bytecode"], "BASELINE", c["baseline"]) for c in checks)


def dump_args(source, out_dir, bytecode_version: str, configs=(), placeholders=(), bare=(),
              archs=()) -> list[str]:
    """The pytest arguments of the dump step that exports ``configs`` (all
    of CONFIGS when none) of a kernel file into ``out_dir``."""
    driver = PYTHON_DIR / "tileperf_dump"
    args = ["-q", "-p", "no:cacheprovider", "-p", "tileperf_dump.plugin", "--rootdir", str(driver),
            str(driver / "dump_driver.py"), f"--tileperf-source={source}",
            f"--tileperf-configs={','.join(configs)}", f"--tileperf-out={out_dir}",
            f"--tileperf-bytecode-version={bytecode_version}"]
    for option, values in (("placeholders", placeholders), ("bare-packages", bare), ("archs", archs)):
        if values:
            args.append(f"--tileperf-{option}={','.join(values)}")
    return args
