"""The one writer of every file pinreport writes (HTML pages, JUnit XML, Markdown, the store's
history index; the store's nights are the harness's): nothing at the path is damaged, whatever
happens.

- The output path is checked first (output_path(), the one rule every command's output follows):
  a directory, device (/dev/full, /dev/null), FIFO or socket there is refused (OutputRefusedError,
  exit 2) and never replaced; so is a path that is the same file as one of the command's inputs
  (by identity: a hard link or a symbolic link to the input is refused too, whatever its name),
  and a folder that cannot take a new file. A path ending in a separator (`-o out/`) names a
  folder: the command's default file name is written inside it. Missing folders are created,
  as pinbench creates them. A symbolic link at the path is replaced by the new file and
  what it pointed to is left as it was, as the harness's writer does (README, "Files pinbench
  reads and writes"): a link planted at an output path never redirects the write.
- The bytes go to a temporary file in the same folder (`NAME.tmp.PID.RANDOM`), which is flushed,
  fsynced and renamed over the path (os.replace): a reader sees the old file or the new one,
  never a mix, and a full disk or a crash leaves the old file as it was (WriteFailedError, exit
  3; the temporary is removed). A file that existed keeps its permission bits.
- On Windows a reader holding the old file open makes the rename fail for a moment: it is
  retried with growing waits.
"""

import contextlib
import os
import secrets
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from pinreport.base.errors import OutputRefusedError, WriteFailedError
from pinreport.base.input_file import not_regular_reason

_RENAME_ATTEMPTS = 20


def _target(path: str | Path) -> Path:
    """The entry to replace: the path itself, a symbolic link included (never where it leads)."""
    return Path(path)


_SEPARATORS = ("/", os.sep, os.altsep or "/")


def output_path(path: str | Path, default_name: str, inputs: Iterable[str | Path] = ()) -> Path:
    """The file a command writes for the output path it was given (module docstring): `path`
    itself, or `default_name` inside it where it ends in a separator; its missing folders
    created. OutputRefusedError (exit 2) when it must not be written, before anything is
    analysed; whatever is at the path is left as it was."""
    name = str(path)
    if name == "":
        raise OutputRefusedError(name, "an empty output path")
    target = Path(name) / default_name if name.endswith(_SEPARATORS) else Path(name)
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        why = "a file of that name is in the way" if isinstance(e, FileExistsError | NotADirectoryError) else e.strerror
        raise OutputRefusedError(name, f"cannot create its folder {str(folder)!r}: {why}") from None
    target = check_output_path(target)
    for given in inputs:
        with contextlib.suppress(OSError):
            if os.path.samefile(target, given):
                raise OutputRefusedError(name, f"is the same file as the input {str(given)!r}; refusing to replace it")
    return target


def check_output_path(path: str | Path) -> Path:
    """The file `path` names, or OutputRefusedError when it must not be written (module
    docstring). Nothing is created."""
    name = str(path)
    if name == "":
        raise OutputRefusedError(name, "an empty output path")
    if name.endswith(_SEPARATORS):  # a folder: output_path() chooses the file in it
        raise OutputRefusedError(name, "names a folder, not a file")
    target = _target(path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputRefusedError(name, f"cannot use as an output path: {e.strerror}") from None
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise OutputRefusedError(name, f"{not_regular_reason(st.st_mode)}; refusing to replace it")
    folder = target.parent
    if not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        raise OutputRefusedError(name, f"its folder {str(folder)!r} {what}")
    return target


def write_file(path: str | Path, data: bytes) -> None:
    """Writes `data` to `path` atomically (module docstring); OutputRefusedError (exit 2) when
    the path is refused before anything is written, WriteFailedError (exit 3) when the write
    fails midway. Either way what was at the path is unchanged."""
    name = str(path)
    target = check_output_path(path)
    try:
        replace_file(target, data)
    except _NoTemporary as e:
        raise OutputRefusedError(name, f"cannot create a file in its folder: {e.strerror}") from None
    except OSError as e:
        raise WriteFailedError(name, f"write failed, the previous file is kept: {e.strerror or e}") from None


class _NoTemporary(OSError):
    """The temporary file beside the target could not be created: nothing was written."""


def replace_file(target: Path, data: bytes) -> None:
    """The bytes to a temporary file beside `target` (`NAME.tmp.PID.RANDOM`), flushed, fsynced
    and renamed over it (module docstring); the temporary is removed whatever happens. OSError
    when it fails, and then what was at `target` is unchanged. The path is not checked here:
    write_file checks a user's path first; the store's history index (store/history_index.py)
    writes a path of its own making and takes a failure as "not written"."""
    tmp = target.with_name(f"{target.name}.tmp.{os.getpid()}.{secrets.token_hex(6)}")
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
