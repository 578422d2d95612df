"""Signals, from pinreport's first instruction: SIGINT, SIGTERM and SIGHUP (SIGBREAK on Windows)
end the program at any moment with exit 128 + N (base/exit_codes.py), one line on standard
error and never a traceback (README, "Exit codes").

install() is the first thing the program does (pinreport/start.py, before the analysis is
imported): from then on a signal runs _stop(), which does not unwind the program (an exception
raised at an arbitrary bytecode can land in an import, a `finally` or the interpreter's exit and
print a traceback there) but ends it at once, after three things that cannot wait:
- the temporary files of writes in progress are removed (atomic_write.py registers each one
  before creating it, so an output path holds the old file or the new one, never a stray);
- worker processes (worker_pool.py) are ended, so none outlives its parent;
- one line is written to file descriptor 2, without Python's buffered streams (which the
  interrupted code may be using).
A worker process inherits the handler by fork; there it ends the worker quietly (its parent
speaks). Standard library only, and nothing imported but what this file names: it runs before
the rest of pinreport is imported.

Signals delivered before the interpreter runs this module keep their default action: the process
ends by the signal itself, which a shell reports as the same 128 + N.
"""

import contextlib
import os
import signal
import sys

from pinreport.base.exit_codes import signal_exit

# The signals that end pinreport, where the platform has them.
_NAMES = ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK")
# Process-wide by nature (a signal handler has no other way to find them): the paths of the
# temporary files being written now, and the process that installed the handlers.
_temporaries: set[str] = set()
_main_pid: list[int] = []


def handled() -> list[signal.Signals]:
    """The signals install() handles on this platform."""
    return [getattr(signal, n) for n in _NAMES if hasattr(signal, n)]


def install() -> None:
    """Every handled signal ends the program as the module docstring says, from now on. Once,
    first, in the main thread."""
    _main_pid[:] = [os.getpid()]
    for s in handled():
        signal.signal(s, _stop)


def in_worker() -> None:
    """In a worker process started without fork (spawn): end quietly on any handled signal."""
    _main_pid[:] = []
    for s in handled():
        signal.signal(s, _stop)


def add_temporary(path: str) -> None:
    """A temporary file about to be created: removed if a signal ends the program before
    remove_temporary() is called."""
    _temporaries.add(path)


def remove_temporary(path: str) -> None:
    _temporaries.discard(path)


def _stop(signum: int, _frame: object) -> None:
    code = exit_code(signum)
    if not _main_pid or os.getpid() != _main_pid[0]:
        os._exit(code)  # a worker: its parent says it, once
    for s in handled():  # a second signal now must not interrupt this one's ending
        with contextlib.suppress(OSError, ValueError):
            signal.signal(s, signal.SIG_IGN)
    for path in list(_temporaries):
        with contextlib.suppress(OSError):
            os.unlink(path)
    _end_children()
    with contextlib.suppress(OSError):
        os.write(2, (stopped_line(signum) + "\n").encode("ascii", "replace"))
    os._exit(code)


def stopped_line(signum: int) -> str:
    """What pinreport says when signal `signum` stops it (here, and cli.py's Ctrl-C inside a
    Python program that calls cli.main without these handlers)."""
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return f"pinreport: stopped by {name} (exit {exit_code(signum)}); no output file is left half written"


def exit_code(signum: int) -> int:
    """128 + N; Windows' Ctrl-Break as SIGTERM, as pinbench gives it (README, "Exit codes")."""
    return signal_exit(signal.SIGTERM if signum == getattr(signal, "SIGBREAK", None) else signum)


def _end_children() -> None:
    """The worker processes (multiprocessing's, the only children pinreport starts), if that
    module was ever imported: each is sent SIGTERM, which ends it quietly (in_worker, or the
    inherited handler)."""
    mp = sys.modules.get("multiprocessing")
    if mp is None:
        return
    try:
        children = mp.active_children()
    except Exception:  # noqa: BLE001 - ending anyway; nothing may stop that
        return
    for child in children:
        with contextlib.suppress(Exception):  # already gone
            child.terminate()
