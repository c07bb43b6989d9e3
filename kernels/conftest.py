"""pytest settings of the kernel folder: a correctness run in which every
case was skipped (no PyTorch, no GPU) ends with exit status SKIP_EXIT_CODE (77), which CTest
reports as not run and a shell script as a failure, never as a pass."""

from tileperf_dump.defaults import SKIP_EXIT_CODE

_outcomes = {"passed": 0, "failed": 0, "skipped": 0}


def pytest_runtest_logreport(report):
    if report.when == "call" or report.skipped:
        _outcomes[report.outcome] = _outcomes.get(report.outcome, 0) + 1


def pytest_sessionfinish(session, exitstatus):
    ran = _outcomes["passed"] + _outcomes["failed"]
    if exitstatus == 0 and session.testscollected and ran == 0 and _outcomes["skipped"]:
        session.exitstatus = SKIP_EXIT_CODE
