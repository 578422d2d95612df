"""Signals from the first instruction (issue 57, invariant 4; base/signals.py, start.py): the
program installs its handlers before it imports the analysis, and from then on SIGINT, SIGTERM
or SIGHUP at any moment ends it with 128 + N, one line on stderr, never a traceback, no
temporary file and no worker process left, an output file either as it was or whole.

Before: Ctrl-C in the first 0.3 s of `pinreport summary` (compare, html) printed a traceback
(a KeyboardInterrupt in an import), and SIGTERM or SIGHUP ended it by the signal at any moment.

The offsets are counted from the moment the handlers are installed, as the kernel shows it
(/proc/PID/status, SigCgt); before that moment the interpreter starts (site, .pth files) and
a signal has its default action: SIGTERM and SIGHUP end the process by the signal itself (a shell
shows the same 128 + N), and Python answers SIGINT with its own KeyboardInterrupt.
PINREPORT_FUZZ=nightly tries every 10 ms from 0 to 300 ms of each signal and command."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from builders import add_to_store, make_store, results_doc, run_doc
from conftest import REPO_ROOT
from pinreport.base import exit_codes, signals

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")

NIGHTLY = os.environ.get("PINREPORT_FUZZ", "ci") == "nightly"
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
COMMANDS = ["summary", "compare", "html"]
OFFSETS_MS = list(range(0, 301, 10)) if NIGHTLY else [0, 25, 60, 120, 200, 300]
DOCUMENTED = {0, 1, 2, 3}
OLD = b"<html>the page of last night</html>\n"


_WHOLE: dict[str, bytes] = {}


def _whole(command, sandbox) -> bytes:
    """What the command writes when nothing stops it (once per command)."""
    if command not in _WHOLE:
        tmp, root, current = sandbox
        out = tmp / f"whole-{command}"
        proc = _start(_argv(command, root, current, out), tmp)
        proc.communicate(timeout=300)
        assert proc.returncode in DOCUMENTED, proc.returncode
        _WHOLE[command] = out.read_bytes()
    return _WHOLE[command]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A store of 12 nights (enough for worker processes) and a results file to judge."""
    tmp = tmp_path_factory.mktemp("signals")
    root = make_store(tmp / "store")
    for night in range(12):
        runs = [run_doc(nonce=f"{night}-{i}", size=2**20 * (1 + i)) for i in range(6)]
        add_to_store(root, results_doc(runs, started_at=f"2025-05-{night + 1:02d}T10:00:00Z"))
    current = tmp / "cur.json"
    current.write_text(json.dumps(results_doc([run_doc(nonce="c", size=2**20 * (1 + i)) for i in range(6)])))
    return tmp, root, current


def _argv(command, root, current, out):
    if command == "summary":
        return ["summary", str(current), "--store", str(root), "--markdown", str(out)]
    if command == "compare":
        return ["compare", "--store", str(root), "--current", str(current), "--junit", str(out)]
    return ["html", "--store", str(root), "--current", str(current), "-o", str(out)]


def _caught(pid: int) -> int:
    """The signals the process catches (a bit mask, bit N-1 for signal N), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return 0


def _session(sid: int) -> list[int]:
    """The processes of session `sid` still there (a worker left behind would be one)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _start(argv, tmp):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports"), "PINREPORT_JOBS": "2"}
    return subprocess.Popen(
        [sys.executable, "-m", "pinreport", *argv],  # __main__.py -> start.py, as the console script
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp,
        start_new_session=True,  # its own process group, as a shell gives a command
    )


def _send(proc, sig):
    """Ctrl-C and a hang-up reach the whole process group, SIGTERM the process (kill PID)."""
    if sig == signal.SIGTERM:
        proc.send_signal(sig)
    else:
        os.killpg(proc.pid, sig)


def _check_ended(proc, sig, out_path, tmp, store, whole) -> tuple[int, str]:
    """How the process ended: by the signal's code and line, or (the signal came after the
    command ended) with a documented code; nothing left half written or behind."""
    stdout, stderr = proc.communicate(timeout=120)
    err = stderr.decode(errors="replace")
    assert "Traceback" not in err and "Exception ignored" not in err, err
    code = proc.returncode
    if code == exit_codes.signal_exit(sig):
        assert err == signals.stopped_line(sig) + "\n", err
    elif code == -sig:
        pass  # the interpreter's own exit, after the command ended: the signal's default action
    else:
        assert code in DOCUMENTED, (code, err)  # it ended before the signal came
    deadline = time.monotonic() + 10
    while _session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _session(proc.pid) == [], "a worker process outlived pinreport"
    assert [p for p in tmp.rglob("*.tmp.*")] == []
    assert [p for p in store.rglob("*.tmp.*")] == []  # the history index it keeps there too
    assert out_path.read_bytes() in (OLD, whole), "half written"
    return code, err


def _cases():
    """(command, signal, offset): every offset for every pair in the nightly run; in CI each
    pair takes two offsets, so that the pairs together cover every offset listed."""
    cases, k = [], 0
    for command in COMMANDS:
        for sig in SIGNALS:
            offsets = (
                OFFSETS_MS if NIGHTLY else [OFFSETS_MS[k % len(OFFSETS_MS)], OFFSETS_MS[(k + 3) % len(OFFSETS_MS)]]
            )
            k += 1
            cases += [(command, sig, ms) for ms in offsets]
    return cases


@pytest.mark.parametrize(("command", "sig", "ms"), _cases(), ids=lambda v: getattr(v, "name", str(v)))
def test_a_signal_at_any_moment_after_the_first_instruction(sandbox, tmp_path, command, sig, ms):
    _, root, current = sandbox
    whole = _whole(command, sandbox)
    out = tmp_path / "out.file"
    out.write_bytes(OLD)
    proc = _start(_argv(command, root, current, out), tmp_path)
    term_bit = 1 << (signal.SIGTERM - 1)
    while not _caught(proc.pid) & term_bit:  # until start.py has installed the handlers
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.0005)
    time.sleep(ms / 1000)
    _send(proc, sig)
    _check_ended(proc, sig, out, tmp_path, root, whole)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
@pytest.mark.parametrize("ms", [0, 5, 20, 50, 100] if not NIGHTLY else list(range(0, 301, 5)))
def test_sigterm_and_sighup_from_the_exec_on(sandbox, tmp_path, sig, ms):
    """From the process's start: before the handlers, the signal's default action ends it by the
    signal (no traceback, a shell shows 128 + N); after, the handlers' one line."""
    _, root, current = sandbox
    whole = _whole("summary", sandbox)
    out = tmp_path / "out.file"
    out.write_bytes(OLD)
    proc = _start(_argv("summary", root, current, out), tmp_path)
    time.sleep(ms / 1000)
    _send(proc, sig)
    code, _ = _check_ended(proc, sig, out, tmp_path, root, whole)
    assert code in (exit_codes.signal_exit(sig), -sig), code


def test_a_signal_removes_the_temporary_file_being_written(tmp_path):
    """A temporary registered by the atomic writer (atomic_write.replace_file) is removed when a
    signal ends the program, before the one line and the exit."""
    tmp = tmp_path / "report.html.tmp.1.abc"
    program = (
        "import os, signal, sys, time\n"
        "from pinreport.base import signals\n"
        "signals.install()\n"
        f"signals.add_temporary({str(tmp)!r})\n"
        f"open({str(tmp)!r}, 'w').write('half a page')\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "time.sleep(30)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports")}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, env=env, timeout=60)
    assert done.returncode == 143
    assert done.stderr.decode() == "pinreport: stopped by SIGTERM (exit 143); no output file is left half written\n"
    assert not tmp.exists()


def test_the_program_starts_with_the_handlers():
    """`pinreport` (the console script) and `python -m pinreport` both start at start.main, whose
    module installs the handlers before it imports anything of the analysis."""
    import tomllib

    scripts = tomllib.loads((REPO_ROOT / "reports/pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"pinreport": "pinreport.start:main"}
    assert "from pinreport.start import main" in (REPO_ROOT / "reports/pinreport/__main__.py").read_text()
    program = (
        "import sys, pinreport.start; print(sorted(m for m in sys.modules if m.startswith(('pinreport', 'numpy'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports")}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == str(
        ["pinreport", "pinreport.base", "pinreport.base.exit_codes", "pinreport.base.signals", "pinreport.start"]
    )
