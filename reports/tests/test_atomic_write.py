"""Every file pinreport writes goes through atomic_write.py (a hostile output): a write that
fails midway (a full disk) keeps the previous file whole (before: an existing report.html was
truncated to 4096 bytes), and an output path that is a directory, device, FIFO or socket is
refused with exit 2 and left as it was."""

import errno
import os
import socket
import stat

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
        (_fifo, "is a FIFO, not a regular file"),
        (_socket, "is a socket, not a regular file"),
        (_char_device, "is a character device, not a regular file"),
    ],
    ids=["directory", "fifo", "socket", "device"],
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


def test_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(OutputRefusedError, match="does not exist"):
        write_file(tmp_path / "no" / "such" / "report.html", b"x")
    assert not (tmp_path / "no").exists()


def test_a_symbolic_link_is_replaced_and_its_target_kept(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "report.html"
    target.write_bytes(OLD)
    link = tmp_path / "report.html"
    link.symlink_to(target)
    write_file(link, b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert target.read_bytes() == OLD  # what the link pointed to is untouched, as in the harness
    assert _leftovers(tmp_path) == [] and _leftovers(tmp_path / "real") == []


def test_a_symbolic_link_to_a_device_is_replaced_never_written_through(tmp_path):
    link = tmp_path / "report.html"
    link.symlink_to("/dev/null")
    write_file(link, b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"


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
