"""Running a child program (the harness, `pinbench results upgrade -`) with bounds: what it
writes is read up to a size limit, and it must finish within a time limit. A program that
sleeps, prints gigabytes or never reads its input (a hostile or broken PINBENCH_EXE, a FIFO
named as one) is ended and named in one line (ChildFailed), never a hang or a MemoryError.
"""

import contextlib
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass

STDERR_LIMIT = 64 * 1024  # what is kept of its standard error (one message is a line)
_CHUNK = 1 << 16


class ChildFailed(Exception):
    """The program could not be run, took too long or wrote too much; str() says which."""


@dataclass(frozen=True)
class Finished:
    code: int
    stdout: bytes
    stderr: str


def _read(stream, limit: int, into: list[bytes], over: threading.Event) -> None:
    """Reads `stream` until its end, keeping up to limit + 1 bytes; sets `over` past the limit."""
    size = 0
    with contextlib.suppress(OSError, ValueError):
        while chunk := stream.read1(_CHUNK) if hasattr(stream, "read1") else stream.read(_CHUNK):
            if size <= limit:
                into.append(chunk[: limit + 1 - size])
            size += len(chunk)
            if size > limit:
                over.set()
                return


def _write(stream, data: bytes) -> None:
    with contextlib.suppress(OSError, ValueError):  # a program that stops reading (BrokenPipe)
        stream.write(data)
    with contextlib.suppress(OSError, ValueError):
        stream.close()


def run_bounded(argv: Sequence[str], data: bytes, stdout_limit: int, timeout_s: float) -> Finished:
    """argv run with `data` on its standard input; its exit code, standard output (at most
    stdout_limit bytes) and the start of its standard error. ChildFailed when it cannot start,
    has not ended within timeout_s, or writes more than stdout_limit bytes."""
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except (OSError, ValueError) as e:
        raise ChildFailed(f"cannot run: {getattr(e, 'strerror', None) or e}") from None
    out: list[bytes] = []
    err: list[bytes] = []
    too_much = threading.Event()
    threads = [
        threading.Thread(target=_write, args=(proc.stdin, data), daemon=True),
        threading.Thread(target=_read, args=(proc.stdout, stdout_limit, out, too_much), daemon=True),
        threading.Thread(target=_read, args=(proc.stderr, STDERR_LIMIT, err, threading.Event()), daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        reader = threads[1]
        reader.join(timeout_s)
        if too_much.is_set():
            raise ChildFailed(f"wrote more than {stdout_limit} bytes")
        if reader.is_alive():
            raise ChildFailed(f"did not finish within {timeout_s:g} s")
        try:
            code = proc.wait(timeout=max(1.0, timeout_s / 10))
        except subprocess.TimeoutExpired:
            raise ChildFailed(f"did not finish within {timeout_s:g} s") from None
    except BaseException:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        # Its pipes are left to the reading threads (daemons): a process it started may still
        # hold them open, and closing a stream another thread is blocked reading waits forever.
        raise
    threads[2].join(1.0)
    return Finished(code, b"".join(out), b"".join(err)[:STDERR_LIMIT].decode("utf-8", "replace"))
