"""One output layer for every command (streams.py): a closed or full standard
output is exit 3 with one line on stderr, a full standard error leaves the exit code as it was,
a stream whose encoding cannot spell a character gets escapes, and Ctrl-C is exit 130 with one
line and no file left half written. Never a traceback.

Before: `summary` to a closed or full stdout ended in a traceback, exit 4; a bad input with a
full stderr exited 1; a non-ASCII file name on an ASCII stream was exit 4; Ctrl-C during html or
summary printed a KeyboardInterrupt traceback."""

import os
import shutil
import signal
import subprocess
import sys

import pytest
from builders import add_to_store, make_store, results_doc, run_doc
from conftest import REPO_ROOT
from pinreport import cli

CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
TRACE = REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json"
COMMANDS = ["compare", "summary", "html", "trace", "reserve", "aa", "advise"]


def _args(command, tmp_path, current=CURRENT):
    store = tmp_path / "store"
    if not store.exists():
        make_store(store)
        runs = [
            run_doc(size=64 * 2**20, nonce="a"),
            run_doc(size=2**30, costs={"cuda.free": [3 * 2**20] * 7}, nonce="b"),
        ]
        add_to_store(store, results_doc(runs))
    s = str(store)
    return {
        "compare": ["compare", "--store", s, "--current", str(current)],
        "summary": ["summary", str(current)],
        "html": ["html", "--store", s, "--current", str(current), "-o", str(tmp_path / "out" / "r.html")],
        "trace": ["trace", str(TRACE if current == CURRENT else current), "--store", s],
        "reserve": ["reserve", "--store", s, "--size", "1GiB"],
        "aa": ["aa", str(current), str(current)],
        "advise": ["advise", str(TRACE if current == CURRENT else current), "--store", s],
    }[command]


def _pinreport(args, env=None, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "pinreport", *args], env=env, timeout=120, **kwargs)


def _one_line(err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.endswith("\n") and err.count("\n") == 1, err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_closed_stdout_is_exit_3_and_one_line(tmp_path, command):
    done = _pinreport(
        _args(command, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1)
    )
    err = done.stderr.decode()
    assert done.returncode == 3, err
    assert err.startswith("error: (standard output): cannot write: "), err
    _one_line(err)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_stdout_is_exit_3_and_one_line(tmp_path, command):
    with open("/dev/full", "wb") as full:
        done = _pinreport(_args(command, tmp_path), stdout=full, stderr=subprocess.PIPE)
    err = done.stderr.decode()
    assert done.returncode == 3, err
    assert "error: (standard output): cannot write: No space left on device\n" in err, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_a_reader_gone_mid_summary_is_exit_3(tmp_path):
    """`pinreport summary x.json | head -c1`: the reader has gone before the write."""
    r, w = os.pipe()
    os.close(r)
    try:
        done = _pinreport(_args("summary", tmp_path), stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)
    err = done.stderr.decode()
    assert done.returncode == 3, err
    assert err == "error: (standard output): cannot write: Broken pipe\n", err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_stderr_keeps_the_bad_input_exit_code(tmp_path, command):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    args = _args(command, tmp_path, current=bad)
    if command == "reserve":  # reads no results file: a store that is not one
        args[args.index("--store") + 1] = str(bad)
    with open("/dev/full", "wb") as full:
        done = _pinreport(args, stdout=subprocess.DEVNULL, stderr=full)
    assert done.returncode == 2


@pytest.mark.parametrize("command", ["summary", "compare", "aa"])
def test_a_non_ascii_name_on_an_ascii_stream_is_escaped(tmp_path, command):
    current = tmp_path / "Ünïcode.json"
    shutil.copy(CURRENT, current)
    done = _pinreport(
        _args(command, tmp_path, current=current),
        env={"PYTHONIOENCODING": "ascii"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    assert b"\\xdcn\\xefcode.json" in done.stdout, done.stdout.decode()[:500]
    assert done.stderr == b""


def _interrupt(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, delivered at the next bytecode
    raise AssertionError("SIGINT was not delivered")


@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_is_exit_130_and_one_line(tmp_path, monkeypatch, capsys, command):
    monkeypatch.setattr(cli, "out", _interrupt)
    code = cli.main(_args(command, tmp_path))
    err = capsys.readouterr().err
    assert code == 130, err
    assert err == "pinreport: stopped by SIGINT (exit 130); no output file is left half written\n"


def test_ctrl_c_while_the_page_is_written_leaves_no_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("pinreport.base.atomic_write.os.fsync", _interrupt)
    code = cli.main(_args("html", tmp_path))
    assert code == 130, capsys.readouterr().err
    out = tmp_path / "out"  # made only when the page is written (atomic_write.write_file)
    assert not out.exists() or list(out.iterdir()) == [], "no page, no temporary file"
