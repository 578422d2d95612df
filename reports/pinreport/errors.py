"""Typed errors. Each maps to one exit code of the CLI (cli.py)."""


class PinreportError(Exception):
    """Base of every error pinreport raises on purpose."""


class BadInputError(PinreportError):
    """A file that cannot be read, is not valid, or has an unknown schema (exit code 2).

    The message always starts with the file's path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.detail = message


class UsageError(PinreportError):
    """A command-line value that cannot be used (exit code 2)."""
