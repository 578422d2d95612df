"""A failed write to standard output is one line on stderr and exit 3, never 0 and never a
traceback (before: a traceback and exit 4, or "Exception ignored" and exit 120).
pinreport runs as a user runs it: `python -m pinreport`, its stdout closed, a full device or a
pipe whose reader has gone."""

import os
import subprocess
import sys

import pytest
from builders import make_store
from conftest import REPO_ROOT

CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"


def _pinreport(args, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports")}
    return subprocess.run(
        [sys.executable, "-m", "pinreport", *args], env=env, stderr=subprocess.PIPE, timeout=120, **kwargs
    )


@pytest.fixture
def compare_args(tmp_path):
    return ["compare", "--store", str(make_store(tmp_path / "store")), "--current", str(CURRENT)]


def _check(done):
    err = done.stderr.decode()
    assert done.returncode == 3, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: (standard output): cannot write: "), err


def test_closed_stdout(compare_args):
    _check(_pinreport(compare_args, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1)))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_full_device(compare_args):
    with open("/dev/full", "wb") as full:
        done = _pinreport(compare_args, stdout=full)
    _check(done)
    assert "No space left on device" in done.stderr.decode()


def test_reader_gone(compare_args):
    """EPIPE: the reader of the pipe exited before anything was written."""
    r, w = os.pipe()
    os.close(r)
    try:
        done = _pinreport(compare_args, stdout=w)
    finally:
        os.close(w)
    _check(done)
    assert "Broken pipe" in done.stderr.decode()


def test_a_working_stdout_still_exits_0(compare_args):
    done = _pinreport(compare_args, stdout=subprocess.PIPE)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.strip()
