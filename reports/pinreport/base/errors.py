"""Typed errors. Each maps to one exit code of the CLI (cli.py)."""

import shlex


class PinreportError(Exception):
    """Base of every error pinreport raises on purpose."""


class BadInputError(PinreportError):
    """A file that cannot be read, is not valid, or has an unknown schema (exit code 2).

    The message always starts with the file's path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.detail = message

    def __reduce__(self):
        # As built, so that a worker process can hand one back (base/worker_pool.py).
        return (type(self), (self.path, self.detail))

    def detached(self) -> "BadInputError":
        """The same problem as a value to keep (a store's list of bad files): a new error, never
        raised, so it holds no traceback, whose frames would keep alive what they read (a gzip
        bomb's decompressed bytes: 256 MiB each, kept for every bomb named). Built as a worker
        process rebuilds one (__reduce__), so every subclass keeps its own fields."""
        make, args = self.__reduce__()[:2]
        return make(*args)


class OlderResultsError(BadInputError):
    """A results file of an older schema version than the one pinreport reads (exit code 2): the
    harness upgrades it (`pinbench results upgrade`, `pinbench store upgrade`), pinreport never
    does, so data and calls flow from the harness to the report only."""

    def __init__(self, path: str, version: int, current: int) -> None:
        super().__init__(
            path,
            f"results schema version {version}, older than version {current}, which this pinreport reads: "
            f"upgrade it with `pinbench results upgrade {shlex.quote(path)} -o NEW.json`",
        )
        self.version = version
        self.current = current

    def __reduce__(self):
        return (type(self), (self.path, self.version, self.current))


class UnreadableError(BadInputError):
    """A file that could not be read at all (permissions, an I/O error): a fact of this machine
    now, not of the file's bytes, so nothing derived (the store's history index) keeps it."""


class UsageError(PinreportError):
    """A command-line value that cannot be used (exit code 2)."""


class OutputRefusedError(PinreportError):
    """An output path refused before anything was written (exit code 2): a directory, device,
    FIFO or socket, a missing or unwritable folder. Whatever is at the path is left as it was."""

    def __init__(self, path: str, message: str) -> None:
        shown = path if path else '""'  # an empty path, named as typed
        super().__init__(f"{shown}: {message}")
        self.path = path


class WriteFailedError(PinreportError):
    """A write that failed midway (exit code 3): a full disk, a closed pipe, standard output
    closed. A file's previous content is kept (atomic_write.py)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
