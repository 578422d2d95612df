"""Standard output and standard error: the one layer every command writes its text through.

- A stream that cannot take the text (closed before pinreport started, a full device, a pipe
  whose reader has gone) is never a traceback: a failed write to standard output is
  WriteFailedError (exit 3, one line on stderr); a failed write to standard error is dropped,
  as there is nowhere left to say it, and the exit code still tells (a bad input stays 2).
- A stream whose encoding cannot spell a character (`PYTHONIOENCODING=ascii`, a legacy Windows
  console code page) gets the character as a backslash escape (`\\u2265`), never an error: the
  answer is the same on every terminal, only spelled differently.
- The text itself is the formatters'; what came from a file goes through text.py's
  terminal_safe() first, so that no input can move the cursor, recolour or forge a line.
"""

import contextlib
import os
import sys

from pinreport.base.errors import WriteFailedError
from pinreport.base.text import terminal_safe

STDOUT = "(standard output)"


def prepare() -> None:
    """Once, at the start of a command: both streams escape what their encoding cannot spell."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):
                reconfigure(errors="backslashreplace")


def out(text: str) -> None:
    """Writes to standard output, flushed; WriteFailedError (exit 3) when that fails."""
    if sys.stdout is None:
        raise WriteFailedError(STDOUT, "cannot write: standard output is closed")
    try:
        sys.stdout.write(terminal_safe(text, keep="\n\t"))
        sys.stdout.flush()
    except (OSError, ValueError) as e:
        silence(sys.stdout)
        raise WriteFailedError(STDOUT, f"cannot write: {getattr(e, 'strerror', None) or e}") from None


def err(line: str) -> None:
    """One line on standard error; dropped where standard error cannot take it (closed, full)."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(terminal_safe(line.rstrip("\n"), keep="\t") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        silence(sys.stderr)


def finish() -> str | None:
    """At exit: flushes standard output; the reason when that fails (the caller says it once)."""
    if sys.stdout is None:
        return None
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as e:
        silence(sys.stdout)
        return f"cannot write: {getattr(e, 'strerror', None) or e}"
    return None


def silence(stream) -> None:
    """After a failed write: point the stream at the null device, so that the interpreter's own
    flush at exit fails no more (one line was said already, or cannot be)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
