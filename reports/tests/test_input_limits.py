"""Every file pinreport reads is checked before it is read: a regular file
no larger than its limit (input_file.py), else exit 2 with one line. Before: `--current /dev/zero`
ran out of memory (MemoryError, exit 4) and a FIFO blocked forever."""

import os
import re
import threading

import pytest
from builders import make_store
from conftest import REPO_ROOT
from pinreport.base import input_file
from pinreport.base.errors import BadInputError
from pinreport.base.input_file import BENCH_LIMIT, RESULTS_LIMIT, TRACE_LIMIT, InputRefused, read_bounded
from pinreport.cli import main
from pinreport.readers.gbench import NotBenchmarkJson, load_bench
from pinreport.readers.results import load_results
from pinreport.readers.trace import load_trace

CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"


def _sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def test_limits_are_the_documented_ones():
    text = (REPO_ROOT / "docs/results-schema.md").read_text()
    assert f"{RESULTS_LIMIT // 2**20} MiB" in text and f"{BENCH_LIMIT // 2**20} MiB" in text


def test_limits_are_the_harness_ones():
    """One definition: the harness's input_limit, read from its header, not typed again."""
    header = (REPO_ROOT / "harness/include/pinbench/platform/atomic_file.hpp").read_text()
    limits = {m[0]: int(m[1]) << int(m[2]) for m in re.findall(r"(\w+) = std::uint64_t\{(\d+)\} << (\d+);", header)}
    assert limits == {"text": BENCH_LIMIT, "data": RESULTS_LIMIT}
    assert limits["data"] == TRACE_LIMIT  # pinbench writes traces; pinreport reads what it writes


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: "/dev/zero", "/dev/zero: cannot read: is a character device, not a regular file"),
        (lambda tmp: tmp, "cannot read: is a directory, not a regular file"),
        (lambda tmp: (os.mkfifo(tmp / "fifo"), tmp / "fifo")[1], "cannot read: is a FIFO, not a regular file"),
        (
            lambda tmp: _sparse(tmp / "big.json", RESULTS_LIMIT + 1),
            f"cannot read: is {RESULTS_LIMIT + 1} bytes, larger than the limit of 256 MiB",
        ),
        (lambda tmp: tmp / "missing.json", "cannot read: No such file or directory"),
    ],
    ids=["dev-zero", "directory", "fifo", "too-large", "missing"],
)
def test_compare_refuses_the_current_file_unread(tmp_path, capsys, make, says):
    path = make(tmp_path)
    store = make_store(tmp_path / "store")
    result = {}
    # A FIFO would block a reader forever: the command runs in a thread with a bound.
    t = threading.Thread(
        target=lambda: result.update(code=main(["compare", "--store", str(store), "--current", str(path)]))
    )
    t.daemon = True
    t.start()
    t.join(60)
    assert not t.is_alive(), "pinreport blocked on the input"
    err = capsys.readouterr().err
    assert result["code"] == 2, err
    assert err.startswith("error: ") and says in err and err.count("\n") == 1, err


def test_every_reader_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr("pinreport.readers.results.RESULTS_LIMIT", 100)
    monkeypatch.setattr("pinreport.readers.trace.TRACE_LIMIT", 100)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 20 * 2**20)
    for load in (load_results, load_trace):
        with pytest.raises(BadInputError, match="larger than the limit"):
            load(big)
    with pytest.raises(NotBenchmarkJson, match="larger than the limit of 16 MiB"):
        load_bench(big)
    for path in ("/dev/zero", tmp_path):
        with pytest.raises(BadInputError, match="not a regular file"):
            load_trace(path)
        with pytest.raises(NotBenchmarkJson, match="not a regular file"):
            load_bench(path)


def test_a_file_that_grows_while_read_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "f.json"
    path.write_bytes(b"{}")
    real_fstat = os.fstat

    class Small:
        def __init__(self, st):
            self.st = st

        def __getattr__(self, name):
            return 0 if name == "st_size" else getattr(self.st, name)

    monkeypatch.setattr(input_file.os, "fstat", lambda fd: Small(real_fstat(fd)))
    with pytest.raises(InputRefused, match="grew past the limit"):
        read_bounded(path, 1)
    assert read_bounded(path, 2) == b"{}"
