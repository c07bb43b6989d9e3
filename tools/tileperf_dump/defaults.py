"""The defaults and rules shared with the CMake API, read from
``defaults.json`` beside this file: the name rule of kernels and
configurations, the look of an architecture, the TileIR bytecode version the
dump step writes unless told, and the exit code of a test that could not run
(CTest's SKIP_RETURN_CODE). Imports no cuTile."""

import json
from pathlib import Path

_DEFAULTS = json.loads((Path(__file__).resolve().parent / "defaults.json").read_text())

NAME_PATTERN: str = _DEFAULTS["name_pattern"]
ARCH_PATTERN: str = _DEFAULTS["arch_pattern"]
BYTECODE_VERSION: str = _DEFAULTS["bytecode_version"]
SKIP_EXIT_CODE: int = _DEFAULTS["skip_exit_code"]
