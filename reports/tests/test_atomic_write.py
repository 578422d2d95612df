"""Every file pinreport writes goes through atomic_write.py (a hostile output): a write that
fails midway (a full disk) keeps the previous file whole (before: an existing report.html was
truncated to 4096 bytes); an output path that is a directory or a socket is refused with exit 2
and left as it was; a device or a FIFO is written in place, never renamed over."""

import errno
import os
import socket
import stat
import threading
import time

import pytest
from builders import make_store
from conftest import REPO_ROOT
from pinreport.base import atomic_write
from pinreport.base.atomic_write import write_file
from pinreport.base.errors import OutputRefusedError, WriteFailedError
from pinreport.cli import main

CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
OLD = b"<html>the report of last night</html>\n" * 500


def _disk_full_after(monkeypatch, nbytes: int) -> None:
    """Every file written from now on takes `nbytes`, then the disk is full."""
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, f):
            self.f, self.left = f, nbytes

        def write(self, data):
            if len(data) > self.left:
                self.f.write(data[: self.left])
                self.f.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            self.left -= len(data)
            return self.f.write(data)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    def fdopen(fd, mode, *args, **kwargs):
        f = real_fdopen(fd, mode, *args, **kwargs)
        return FullDisk(f) if mode == "wb" else f

    monkeypatch.setattr(atomic_write.os, "fdopen", fdopen)


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if ".tmp." in p.name)


@pytest.mark.parametrize("command", ["html", "compare"])
def test_a_full_disk_keeps_the_previous_file(tmp_path, monkeypatch, capsys, command):
    out = tmp_path / "report.out"
    out.write_bytes(OLD)
    store = make_store(tmp_path / "store")
    _disk_full_after(monkeypatch, 4096)
    args = ["--store", str(store), "--current", str(CURRENT)]
    args = ["html", *args, "-o", str(out)] if command == "html" else ["compare", *args, "--junit", str(out)]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 3, err
    assert out.read_bytes() == OLD
    assert _leftovers(tmp_path) == []
    assert err.startswith(f"error: {out}: write failed, the previous file is kept: No space left on device")
    assert err.count("\n") == 1 and "Traceback" not in err


def _fifo(path):
    os.mkfifo(path)
    return path


def _socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return path


def _char_device(path):
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full's numbers
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.mkdir() or p, "is a directory, not a regular file"),
        (_socket, "is a socket, not a regular file"),
    ],
    ids=["directory", "socket"],
)
@pytest.mark.parametrize("command", ["html", "compare"])
def test_an_output_that_is_not_a_regular_file_is_refused_and_kept(tmp_path, capsys, make, says, command):
    out = make(tmp_path / "out")
    before = os.lstat(out)
    store = make_store(tmp_path / "store")
    args = ["--store", str(store), "--current", str(CURRENT)]
    args = ["html", *args, "-o", str(out)] if command == "html" else ["compare", *args, "--junit", str(out)]
    code = main(args)
    out_text, err = capsys.readouterr()
    assert code == 2, err
    assert err == f"error: {out}: {says}; refusing to replace it\n"
    assert out_text == ""  # refused before anything was analysed
    after = os.lstat(out)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)


def _read_fifo(path, got):
    with open(path, "rb") as f:
        got.append(f.read())


def test_a_fifo_is_written_in_place(tmp_path):
    """A FIFO is a stream: its reader gets the bytes; it is never renamed over."""
    fifo = _fifo(tmp_path / "out")
    got: list[bytes] = []
    reader = threading.Thread(target=_read_fifo, args=(fifo, got))
    reader.start()
    deadline = time.monotonic() + 10
    while True:  # until the reader has the FIFO open (else: no reader, refused below)
        try:
            write_file(fifo, b"the page")
            break
        except WriteFailedError:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    reader.join(10)
    assert got == [b"the page"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_nobody_reads_is_a_failed_write_not_a_hang(tmp_path):
    fifo = _fifo(tmp_path / "out")
    with pytest.raises(WriteFailedError, match="a FIFO that no program reads; nothing was written"):
        write_file(fifo, b"x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("command", ["html", "compare"])
def test_a_full_device_is_written_in_place_and_fails_with_exit_3(tmp_path, capsys, command):
    """/dev/full (a character device, as /dev/stdout reaches a terminal): written in place, so the
    write fails with its error, exit 3, one line; the device is never replaced."""
    out = _char_device(tmp_path / "full")
    before = os.lstat(out)
    store = make_store(tmp_path / "store")
    args = ["--store", str(store), "--current", str(CURRENT)]
    args = ["html", *args, "-o", str(out)] if command == "html" else ["compare", *args, "--junit", str(out)]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 3, err
    assert err == f"error: {out}: write failed: No space left on device\n"
    after = os.lstat(out)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)


def test_the_missing_folders_are_made_when_the_file_is_written(tmp_path):
    """write_file makes them (output_path only checks, so a command that writes nothing leaves
    no folder); a file in the way of one is refused, and kept."""
    write_file(tmp_path / "no" / "such" / "report.html", b"x")
    assert (tmp_path / "no" / "such" / "report.html").read_bytes() == b"x"
    (tmp_path / "file").write_text("keep")
    with pytest.raises(OutputRefusedError, match="a file of that name is in the way"):
        write_file(tmp_path / "file" / "sub" / "report.html", b"x")
    assert (tmp_path / "file").read_text() == "keep"


def test_a_symbolic_link_leads_to_the_file_replaced_and_stays(tmp_path):
    """The path is resolved through its links (atomic_write.resolve): the file the link leads
    to is replaced atomically, the link stays a link."""
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "report.html"
    target.write_bytes(OLD)
    link = tmp_path / "report.html"
    link.symlink_to(target)
    write_file(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert _leftovers(tmp_path) == [] and _leftovers(tmp_path / "real") == []


def test_a_symbolic_link_to_a_device_is_written_through_never_replaced(tmp_path):
    """Before: the link (as /dev/stdout is one) was replaced by a regular file."""
    link = tmp_path / "report.html"
    link.symlink_to("/dev/null")
    write_file(link, b"new")
    assert link.is_symlink() and os.readlink(link) == "/dev/null"


def test_a_failed_rename_keeps_the_previous_file(tmp_path, monkeypatch):
    out = tmp_path / "j.xml"
    out.write_bytes(OLD)

    def no_rename(*args):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(atomic_write.os, "replace", no_rename)
    with pytest.raises(WriteFailedError, match="Input/output error"):
        write_file(out, b"new")
    assert out.read_bytes() == OLD and _leftovers(tmp_path) == []


def test_replace_file_the_writer_of_paths_pinreport_makes_itself(tmp_path):
    """The store's history index goes through the same writer as every output, with no path
    check: the bytes arrive whole, no temporary is left, and a failure is an OSError that leaves
    the old file as it was."""
    from pinreport.base.atomic_write import replace_file

    target = tmp_path / "index.json"
    target.write_bytes(b"old")
    replace_file(target, b"new bytes")
    assert target.read_bytes() == b"new bytes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.json"]
    with pytest.raises(OSError):
        replace_file(tmp_path / "no-such-folder" / "index.json", b"x")
    assert target.read_bytes() == b"new bytes"
