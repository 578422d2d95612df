"""Reading an input file, bounded: the one way pinreport reads the bytes of a file it is given
(results, traces, Google Benchmark JSON; the store's files through store/files.py).

Before a byte is parsed the file must be a regular file (a directory, FIFO, device or socket is
refused: /dev/zero would be read until memory runs out, a FIFO blocks forever) no larger than
the limit for its kind (docs/results-schema.md, "Input limits"; the harness refuses the same
sizes). The file is opened without blocking, checked on the open handle (no race between the
check and the read) and read up to its limit plus one byte, so a file that grows meanwhile is
refused too.

Standard library only: benchmarks/summarize.py reads benchmark JSON through gbench.py on
machines without pinreport's dependencies.
"""

import os
import stat
from pathlib import Path

MIB = 1024 * 1024
# The limits, one per kind of input: the harness's (harness/include/pinbench/platform/atomic_file.hpp,
# input_limit::data for what it writes: results, store files, traces; a test reads that header
# and compares). Real results files are about 2 MiB. Benchmark JSON, which only pinreport reads,
# is bounded as scenario files are (input_limit::text).
RESULTS_LIMIT = 256 * MIB
TRACE_LIMIT = RESULTS_LIMIT
BENCH_LIMIT = 16 * MIB

_KIND_OF_MODE = (
    (stat.S_ISLNK, "a symbolic link"),  # seen by lstat (the store looks before it follows)
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputRefused(OSError):
    """The file is not a regular file or is larger than its limit; str() is the reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.strerror = reason

    def __str__(self) -> str:
        return self.reason


def kind_of_mode(mode: int) -> str:
    """What a file of this mode is ("a FIFO", "a directory", ...), "not a regular file" else."""
    return next((name for test, name in _KIND_OF_MODE if test(mode)), "not a regular file")


def not_regular_reason(mode: int) -> str:
    what = kind_of_mode(mode)
    return f"is {what}, not a regular file" if not what.startswith("not") else what


def _size_label(n: int) -> str:
    return f"{n // MIB} MiB" if n % MIB == 0 else f"{n} bytes"


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of `path`; OSError when it cannot be read (strerror says why), InputRefused
    (an OSError) when it is not a regular file or is larger than `limit` bytes."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        before = os.stat(path)
    except OSError:
        before = None
    if before is not None and not stat.S_ISREG(before.st_mode):
        # Refused before it is opened: opening a FIFO or a tape device can have effects.
        raise InputRefused(not_regular_reason(before.st_mode))
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputRefused(not_regular_reason(st.st_mode))
        if st.st_size > limit:
            raise InputRefused(f"is {st.st_size} bytes, larger than the limit of {_size_label(limit)}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            data = f.read(limit + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:
        raise InputRefused(f"grew past the limit of {_size_label(limit)} while it was read")
    return data
