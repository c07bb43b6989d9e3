"""Writing the dump step's files: each is replaced whole or not at all, so
that an interrupted run leaves the previous file (or none), never a part.
Imports no cuTile, so that ``run_dump.py`` and the manifest use it before
they know whether cuTile is needed."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Writes ``data`` to a temporary file beside ``path``, syncs it and
    renames it over ``path``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".tmp.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json(path: Path, value, **dumps_args) -> None:
    """``value`` as JSON text with a final newline, written atomically."""
    write_atomic(path, (json.dumps(value, **dumps_args) + "\n").encode())
