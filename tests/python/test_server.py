"""The resident export process (tileperf_dump.server): a step runs in it as it
would in its own process (arguments, environment, working directory, output,
exit code), steps run side by side, a step that goes away takes its work with
it, and a server whose files changed gives way to a fresh one."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from textwrap import dedent

import pytest

TOP = Path(__file__).resolve().parents[2]

STEP = dedent("""\
    import os, sys, time


    def main(argv):
        print("step", argv, os.getcwd(), os.environ.get("STEP_VALUE"), os.getpid(), flush=True)
        if argv[:1] == ["sleep"]:
            open(argv[1], "w").write(str(os.getpid()))
            time.sleep(60)
        if argv[:1] == ["kill"]:
            os.kill(os.getpid(), 9)
        if argv[:1] == ["fail"]:
            print("failing", file=sys.stderr)
            return 3
        return 0
    """)

CLIENT = dedent("""\
    import sys
    from tileperf_dump import server
    code = server.delegate("probe_step", sys.argv[1:])
    print("delegated" if code is not None else "not delegated", flush=True)
    sys.exit(code if code is not None else 99)
    """)


def _tools(tmp_path):
    shutil.copytree(TOP / "tools" / "tileperf_dump", tmp_path / "tools" / "tileperf_dump",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "probe_step.py").write_text(STEP)
    (tmp_path / "client.py").write_text(CLIENT)
    return tmp_path


@pytest.fixture
def tools(tmp_path):
    """A copy of tileperf_dump of its own (a server of its own), and a step module."""
    yield _tools(tmp_path)
    subprocess.run(["pkill", "-f", f"tileperf_dump.server .*--tools {tmp_path}/"], check=False)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """The same, one server for the tests that do not change its files."""
    folder = tmp_path_factory.mktemp("shared")
    yield _tools(folder)
    subprocess.run(["pkill", "-f", f"tileperf_dump.server .*--tools {folder}/"], check=False)


def run(tools, *args, env=None, cwd=None, **kwargs):
    environ = dict(os.environ, PYTHONPATH=f"{tools / 'tools'}:{tools / 'steps'}", TILEPERF_EXPORT_SERVER="1",
                   TILEPERF_EXPORT_SERVER_IDLE="30")
    environ.update(env or {})
    environ.pop("TILEPERF_IN_EXPORT_SERVER", None)
    return subprocess.run([sys.executable, str(tools / "client.py"), *args], capture_output=True, text=True,
                          env=environ, cwd=cwd or tools, **kwargs)


def test_a_step_runs_in_the_server_as_in_its_own_process(shared):
    first = run(shared, "a", "b", env={"STEP_VALUE": "one"})
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1] == "delegated"
    assert first.stdout.startswith(f"step ['a', 'b'] {shared} one ")
    work = shared / "elsewhere"
    work.mkdir()
    again = run(shared, "fail", env={"STEP_VALUE": "two"}, cwd=work)
    assert again.returncode == 3 and again.stderr == "failing\n"
    assert again.stdout.startswith(f"step ['fail'] {work} two ")
    # Two steps, two workers of one server: not the step's own process.
    assert first.stdout.split()[-2] != again.stdout.split()[-2]


def test_a_step_killed_by_a_signal_kills_its_caller_with_it(shared):
    # What waits for the step (CMake's manifest step, ctest) sees a signal,
    # as it would had the step run in its own process.
    killed = run(shared, "kill")
    assert killed.returncode == -9, (killed.returncode, killed.stderr)
    assert "delegated" not in killed.stdout


def test_steps_run_side_by_side(shared):
    run(shared, "warm")
    started = time.monotonic()
    env = dict(os.environ, PYTHONPATH=f"{shared / 'tools'}:{shared / 'steps'}", TILEPERF_EXPORT_SERVER="1")
    env.pop("TILEPERF_IN_EXPORT_SERVER", None)
    clients = [subprocess.Popen([sys.executable, str(shared / "client.py"), str(i)], stdout=subprocess.PIPE,
                                text=True, env=env, cwd=shared) for i in range(4)]
    outputs = [c.communicate()[0] for c in clients]
    assert all(c.returncode == 0 for c in clients)
    assert sorted(o.split()[1] for o in outputs) == ["['0']", "['1']", "['2']", "['3']"]
    assert time.monotonic() - started < 30


def test_a_step_that_goes_away_takes_its_work_with_it(shared):
    pid_file = shared / "worker.pid"
    environ = dict(os.environ, PYTHONPATH=f"{shared / 'tools'}:{shared / 'steps'}", TILEPERF_EXPORT_SERVER="1")
    environ.pop("TILEPERF_IN_EXPORT_SERVER", None)
    client = subprocess.Popen([sys.executable, str(shared / "client.py"), "sleep", str(pid_file)],
                              stdout=subprocess.PIPE, env=environ, cwd=shared)
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the step never started"
        time.sleep(0.1)
    worker = int(pid_file.read_text())
    client.send_signal(signal.SIGKILL)
    client.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{worker}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{worker}").exists() or "Z" in Path(f"/proc/{worker}/stat").read_text().split()[2]


def test_a_server_whose_files_changed_gives_way_to_a_fresh_one(tools):
    first = run(tools, "x")
    assert first.stdout.splitlines()[-1] == "delegated"
    server = servers(tools)
    assert len(server) == 1
    edited = tools / "tools" / "tileperf_dump" / "trips.py"
    edited.write_text(edited.read_text() + "\n# edited\n")
    second = run(tools, "y")
    assert second.returncode == 0 and second.stdout.splitlines()[-1] == "delegated", second.stdout + second.stderr
    fresh = servers(tools)
    assert len(fresh) == 1 and fresh != server


def servers(tools) -> list[str]:
    found = subprocess.run(["pgrep", "-f", f"tileperf_dump.server .*--tools {tools}/tools"], capture_output=True,
                           text=True).stdout.split()
    return found


def test_off_runs_each_step_in_its_own_process(tools):
    off = run(tools, "z", env={"TILEPERF_EXPORT_SERVER": "0"})
    assert off.returncode == 99 and off.stdout == "not delegated\n"
