"""The harness pinreport runs (PINBENCH_EXE, for `pinbench results upgrade -`) and the upgrade
cache it reads are read with bounds (child.py): a program that sleeps, prints
without end, or is a FIFO or a device, and a cache entry that is a FIFO, give one line naming
the file and PINBENCH_EXE, exit 2, in seconds; never a hang or a MemoryError.

Before: the output was read whole (MemoryError on a program printing gigabytes), with no
timeout (a program that sleeps or a FIFO hung pinreport), and the executable was hashed whole
(PINBENCH_EXE=/dev/zero read until memory ran out)."""

import os
import stat
import sys
import time

import pytest
from conftest import FIXTURES
from pinreport.cli import main
from pinreport.readers import upgrade, upgrade_cache

OLD = FIXTURES / "baseline-572.16.json"  # results schema 1: read through the harness


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("PINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(upgrade, "_failed_harness", {})
    monkeypatch.setattr(upgrade, "UPGRADE_TIMEOUT_S", 2.0)


def _program(tmp_path, body):
    exe = tmp_path / "pinbench"
    exe.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n")
    exe.chmod(0o755)
    return str(exe)


def _summary(capsys, exe, monkeypatch):
    monkeypatch.setenv("PINBENCH_EXE", exe)
    started = time.monotonic()
    code = main(["summary", str(OLD)])
    out, err = capsys.readouterr()
    return code, err, time.monotonic() - started


def _check(code, err, seconds, why):
    assert code == 2, err
    assert err.startswith(f"error: {OLD}: "), err
    assert why in err, err
    assert err.count("\n") == 1, err
    assert seconds < 30


def test_a_program_that_sleeps_is_ended(tmp_path, capsys, monkeypatch):
    exe = _program(tmp_path, "time.sleep(600)")
    _check(*_summary(capsys, exe, monkeypatch), "did not finish within 2 s")


def test_a_script_whose_child_sleeps_is_ended(tmp_path, capsys, monkeypatch):
    """The shell is ended; the sleep it started still holds the pipes, and is not waited for."""
    exe = tmp_path / "pinbench"
    exe.write_text("#!/bin/sh\nsleep 20\n")  # (left to end by itself)
    exe.chmod(0o755)
    _check(*_summary(capsys, str(exe), monkeypatch), "did not finish within 2 s")


def test_a_program_that_sleeps_after_closing_its_output_is_ended(tmp_path, capsys, monkeypatch):
    exe = _program(tmp_path, "sys.stdout.close(); import os; os.close(1); time.sleep(600)")
    _check(*_summary(capsys, exe, monkeypatch), "did not finish within 2 s")


def test_a_program_that_prints_without_end_is_cut_at_the_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(upgrade, "RESULTS_LIMIT", 1 << 20)
    exe = _program(tmp_path, "b = b'x' * 65536\nwhile True: sys.stdout.buffer.write(b)")
    _check(*_summary(capsys, exe, monkeypatch), f"wrote more than {1 << 20} bytes")


def test_a_program_that_never_reads_its_input(tmp_path, capsys, monkeypatch):
    exe = _program(tmp_path, "sys.stdin.close(); time.sleep(600)")
    _check(*_summary(capsys, exe, monkeypatch), "did not finish within 2 s")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_as_the_harness(tmp_path, capsys, monkeypatch):
    fifo = tmp_path / "pinbench"
    os.mkfifo(fifo)
    os.chmod(fifo, 0o755)
    _check(*_summary(capsys, str(fifo), monkeypatch), "cannot run: ")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_as_the_harness(tmp_path, capsys, monkeypatch):
    _check(*_summary(capsys, "/dev/zero", monkeypatch), "cannot run: ")


def test_a_failed_harness_is_not_waited_for_again(tmp_path, capsys, monkeypatch):
    exe = _program(tmp_path, "time.sleep(600)")
    monkeypatch.setenv("PINBENCH_EXE", exe)
    started = time.monotonic()
    assert main(["aa", str(OLD), str(OLD), str(OLD)]) == 2
    err = capsys.readouterr().err
    assert err.count("did not finish within 2 s") == 3, err
    assert time.monotonic() - started < 5, "three files, one wait of 2 s"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_the_upgrade_cache_is_not_read(tmp_path):
    path = tmp_path / "cache" / "entry.json.gz"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert upgrade_cache.lookup(path) is None
    assert stat.S_ISFIFO(os.lstat(path).st_mode)


def test_a_working_harness_still_upgrades(capsys, monkeypatch):
    exe = os.environ.get("PINBENCH_EXE")
    if not exe or not os.path.exists(exe):
        pytest.skip("needs a built pinbench (PINBENCH_EXE)")
    code, err, _ = _summary(capsys, exe, monkeypatch)
    assert code in (0, 1, 3), err
