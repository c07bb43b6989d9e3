"""What keeps a kernel file's code from taking the dump step down with it:
an ``os._exit`` raised as :class:`ProcessExit` instead of ending the process
(:func:`exits_raised`), and a time limit that ends a step which does not
return, Python code with :class:`StepTimeout` and code stuck outside Python
with the stacks of every thread and the process's end (:func:`time_limit`).
Both are exceptions that ``except Exception`` in library code does not
swallow."""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
from typing import Iterator


class ProcessExit(BaseException):
    """``os._exit`` called while a kernel file's code ran: raised in its
    place, so that the call is an error of that code, with its traceback."""


class StepTimeout(BaseException):
    """A kernel file's code did not return within its time limit."""


@contextlib.contextmanager
def exits_raised() -> Iterator[None]:
    """``os._exit`` called by this process (not by a child it forked) raises
    :class:`ProcessExit` until the block ends."""
    real_exit, pid = os._exit, os.getpid()

    def _exit(status):
        if os.getpid() != pid:  # a child the code forked ends as it asked
            real_exit(status)
        raise ProcessExit(f"os._exit({status!r}) ended the process")

    os._exit = _exit
    try:
        yield
    finally:
        os._exit = real_exit


# Seconds past the limit after which code stuck outside Python (where no
# exception can reach it) ends its process, its threads' stacks printed.
GRACE = 30


@contextlib.contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Raises :class:`StepTimeout` (``what`` did not end within ``seconds``)
    in the main thread when the block runs past ``seconds``; when Python
    cannot run (a call that never returns), ends the process ``GRACE``
    seconds later with the stacks of its threads on stderr. No limit for
    ``seconds`` <= 0."""
    if seconds <= 0:
        yield
        return

    def expired(signum, frame):
        raise StepTimeout(f"{what} did not end within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(seconds + GRACE, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)
