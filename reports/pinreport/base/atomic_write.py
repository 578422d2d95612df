"""The one writer of every file pinreport writes (HTML pages, JUnit XML, Markdown, the store's
history index; the store's nights are the harness's), and the one rule of where it may write.

- resolve() is the one place an output path is resolved: through symbolic links and `..`, also
  through folders not made yet (`new/../x` is `x`: what the kernel will find once `new`
  exists). It says where the bytes go and how:
  - a regular file, or a path where nothing is yet: replaced atomically, as below; a link to
    a file replaces the file it leads to (the link stays);
  - a stream (a character device such as /dev/null or a terminal, a FIFO, or this process's own
    standard output or error, as `/dev/stdout` names them): written in place, appended, never
    renamed over (before, `--junit /dev/stdout` replaced the machine's /dev/stdout link);
  - anything else (a directory, a socket, a block device), an empty path or one the system
    cannot use (too long, a loop of links, a file where a folder must be): refused
    (OutputRefusedError, exit 2), left as it was.
- output_path() applies it to a path a user named, before anything is analysed, and refuses,
  by identity (the file system's answer, os.stat's device and inode, never a comparison of
  names), a target that is one of the command's inputs (a hard link or a symbolic link to one
  too, whatever its name) or lies inside a store the command reads (store.json, a stored
  night). A path ending in a separator (`-o out/`) names a folder: the command's default file
  name is written inside it. Missing folders are made when the file is written (write_file),
  never for a command that ends without writing it.
- The bytes of a replaced file go to a temporary file in the same folder (`NAME.tmp.PID.RANDOM`),
  which is flushed, fsynced and renamed over the path (os.replace): a reader sees the old file
  or the new one, never a mix, and a full disk or a crash leaves the old file as it was
  (WriteFailedError, exit 3; the temporary is removed, also when a signal ends the program:
  base/signals.py). A file that existed keeps its permission bits.
- On Windows a reader holding the old file open makes the rename fail for a moment: it is
  retried with growing waits.
"""

import contextlib
import errno
import os
import secrets
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pinreport.base import signals
from pinreport.base.errors import OutputRefusedError, WriteFailedError
from pinreport.base.input_file import not_regular_reason

_RENAME_ATTEMPTS = 20
_SEPARATORS = ("/", os.sep, os.altsep or "/")
_STANDARD_STREAMS = (1, 2)
_NAME_KEPT = 200  # of a target's name in its temporary's: within the 255 bytes a name may have


@dataclass(frozen=True)
class Target:
    """Where an output path's bytes go (resolve())."""

    path: Path  # a stream: the path as given (opened through its links); else the resolved path
    in_place: bool  # a stream: written in place, appended, never renamed over


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _stat(path: str | Path) -> os.stat_result | None:
    """os.stat(path) through links; None where nothing is there (or a link leads nowhere)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _is_stream(st: os.stat_result) -> bool:
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    for fd in _STANDARD_STREAMS:  # `/dev/stdout` while standard output is a regular file
        with contextlib.suppress(OSError):
            if _identity(os.fstat(fd)) == _identity(st):
                return True
    return False


def resolve(path: str | Path, shown: str | None = None) -> Target:
    """Where the bytes written to `path` go (module docstring); OutputRefusedError when they
    may not go there, naming `shown` (the path as the user gave it; default `path`). Nothing is
    created."""
    name = os.fspath(path)
    shown = name if shown is None else shown
    if name == "":
        raise OutputRefusedError(shown, "an empty output path")
    if name.endswith(_SEPARATORS):  # a folder: output_path() chooses the file in it
        raise OutputRefusedError(shown, "names a folder, not a file")
    try:
        st = _stat(name)  # as the kernel opens it: /dev/stdout reaches the stream itself
        if st is not None and _is_stream(st):
            return Target(Path(name), in_place=True)
        real = Path(os.path.realpath(name))
        st = _stat(real)
        if st is None:
            _check_folders(shown, real.parent)
    except OSError as e:
        raise OutputRefusedError(shown, f"cannot use as an output path: {e.strerror or e}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputRefusedError(shown, f"{not_regular_reason(st.st_mode)}; refusing to replace it")
    return Target(real, in_place=False)


def _check_folders(name: str, folder: Path) -> None:
    """The nearest existing folder above a new file must be a folder (the rest is made)."""
    for above in (folder, *folder.parents):
        st = _stat(above)
        if st is None:
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise OutputRefusedError(
                name, f"cannot create its folder {str(above)!r}: a file of that name is in the way"
            )
        return


def output_path(
    path: str | Path, default_name: str, inputs: Iterable[str | Path] = (), stores: Iterable[str | Path] = ()
) -> Path:
    """The file a command writes for the output path a user gave (module docstring): `path`
    itself, or `default_name` inside it where it ends in a separator; its missing folders
    created. OutputRefusedError (exit 2) when it must not be written: checked before anything
    is analysed, and whatever is at the path is left as it was. `inputs`: the files the command
    reads; `stores`: the stores it reads (no file inside one is ever an output)."""
    name = os.fspath(path)
    if name == "":
        raise OutputRefusedError(name, "an empty output path")
    given = Path(name) / default_name if name.endswith(_SEPARATORS) else Path(name)
    target = resolve(given, name)
    _refuse_inputs(name, target, inputs)
    _refuse_inside_stores(name, target, stores)
    if not target.in_place:
        _check_writable(name, target.path.parent)
    return given


def _check_writable(name: str, folder: Path) -> None:
    """The nearest existing folder above a file to write takes new entries (the missing folders
    are made by write_file, when there is something to write)."""
    for above in (folder, *folder.parents):
        if _stat(above) is not None:
            if not os.access(above, os.W_OK | os.X_OK):
                raise OutputRefusedError(name, f"cannot create a file in {str(above)!r}: permission denied")
            return


def _refuse_inputs(name: str, target: Target, inputs: Iterable[str | Path]) -> None:
    with contextlib.suppress(OSError):
        st = _stat(target.path)
        if st is None:
            return
        for given in inputs:
            with contextlib.suppress(OSError):
                source = _stat(given)
                if source is not None and _identity(source) == _identity(st):
                    raise OutputRefusedError(
                        name, f"is the same file as the input {os.fspath(given)!r}; refusing to replace it"
                    )


def _refuse_inside_stores(name: str, target: Target, stores: Iterable[str | Path]) -> None:
    roots = {}
    for store in stores:
        with contextlib.suppress(OSError, ValueError):
            st = _stat(store) if os.fspath(store) else None
            if st is not None and stat.S_ISDIR(st.st_mode):
                roots[_identity(st)] = os.fspath(store)
    if not roots:
        return
    real = Path(os.path.realpath(target.path))  # a stream's path too: a FIFO planted in a store
    for above in real.parents:
        with contextlib.suppress(OSError):
            st = _stat(above)
            if st is not None and _identity(st) in roots:
                store = roots[_identity(st)]
                raise OutputRefusedError(
                    name, f"lies inside the store {store!r} this command reads; refusing to write there"
                )


def write_file(path: str | Path, data: bytes) -> None:
    """Writes `data` to `path` (module docstring): a stream in place, anything else atomically;
    OutputRefusedError (exit 2) when the path is refused before anything is written,
    WriteFailedError (exit 3) when the write fails midway. A replaced file is then unchanged."""
    name = os.fspath(path)
    target = resolve(path)
    try:
        if target.in_place:
            _write_in_place(target.path, data)
        else:
            _make_folders(name, target.path.parent)
            replace_file(target.path, data)
    except _NoTemporary as e:
        raise OutputRefusedError(name, f"cannot create a file in its folder: {e.strerror}") from None
    except _NoReader:
        raise WriteFailedError(name, "a FIFO that no program reads; nothing was written") from None
    except OSError as e:
        kept = "" if target.in_place else ", the previous file is kept"
        raise WriteFailedError(name, f"write failed{kept}: {e.strerror or e}") from None


def _make_folders(name: str, folder: Path) -> None:
    """The missing folders above a file about to be written (never made for nothing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        why = "a file of that name is in the way" if isinstance(e, FileExistsError | NotADirectoryError) else e.strerror
        raise OutputRefusedError(name, f"cannot create its folder {str(folder)!r}: {why}") from None


class _NoTemporary(OSError):
    """The temporary file beside the target could not be created: nothing was written."""


class _NoReader(OSError):
    """A FIFO that no process has open for reading: writing would wait for ever."""


def _write_in_place(path: Path, data: bytes) -> None:
    """A stream: opened without creating or truncating anything, appended to. A FIFO without a
    reader is refused (_NoReader) instead of waiting for one."""
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise _NoReader(e.errno, e.strerror) from None
        raise
    try:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def replace_file(target: Path, data: bytes) -> None:
    """The bytes to a temporary file beside `target` (`NAME.tmp.PID.RANDOM`), flushed, fsynced
    and renamed over it (module docstring); the temporary is removed whatever happens. OSError
    when it fails, and then what was at `target` is unchanged. The path is not checked here:
    write_file resolves a user's path first; the store's history index (store/history_index.py)
    writes a path of its own making and takes a failure as "not written"."""
    # The target's name, shortened where a long one would make the temporary's too long.
    tmp = target.with_name(f"{target.name[:_NAME_KEPT]}.tmp.{os.getpid()}.{secrets.token_hex(6)}")
    signals.add_temporary(str(tmp))  # before it exists: a signal from now on removes it
    try:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except OSError as e:
            raise _NoTemporary(e.errno, e.strerror) from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            if not target.is_symlink():  # a regular file keeps its permission bits
                with contextlib.suppress(OSError):
                    os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
            _replace(tmp, target)
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
    finally:
        signals.remove_temporary(str(tmp))


def write_text(path: str | Path, text: str) -> None:
    write_file(path, text.encode("utf-8"))


def _replace(tmp: Path, target: Path) -> None:
    for i in range(_RENAME_ATTEMPTS):
        try:
            os.replace(tmp, target)
            return
        except PermissionError:
            if os.name != "nt" or i == _RENAME_ATTEMPTS - 1:
                raise
            time.sleep(min(0.01 * (i + 1), 0.1))
