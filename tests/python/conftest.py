"""torch is imported once, before any test: the tests that forget the modules
they imported (a fresh import of a library per test) must not forget torch's,
which cannot be imported twice in one process."""

import torch  # noqa: F401
from tileperf_dump.fake_gpu import warm

warm()
