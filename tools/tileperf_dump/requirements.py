"""Whether this Python has the packages a requirements file pins:

    python requirements.py FILE...

Each line of a file is `name==version` (`#` starts a comment, blank lines
are skipped). Exits 0 when every package is installed at its version;
otherwise prints one line per package that is missing or at another
version, or per line that is not a pin (FILE:LINE: what is wrong), and
exits 1 (2 for a line that is not a pin). Imports none of the packages.
"""

import re
import sys
from importlib import metadata
from pathlib import Path

PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!-]+)")


def pins(path: Path) -> list[tuple[int, str, str]]:
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        match = PIN.fullmatch(text)
        if not match:
            raise ValueError(f"{path}:{number}: '{text}' is not a pin (name==version)")
        out.append((number, match.group(1), match.group(2)))
    return out


def problems(path: Path) -> list[str]:
    found = []
    for number, name, version in pins(path):
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            found.append(f"{path}:{number}: {name}=={version} is not installed")
            continue
        if installed != version:
            found.append(f"{path}:{number}: {name} is {installed}, not the pinned {version}")
    return found


def main(argv: list[str]) -> int:
    try:
        found = [p for f in argv for p in problems(Path(f))]
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
