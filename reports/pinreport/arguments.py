"""pinreport's argument parser: argparse, with the two things its errors lack, and completion.

- Every error line goes out through streams.err, so a word typed on the command line (an
  option, a value, a file name) is shown escaped (text.py) and can neither retitle nor clear
  the terminal.
- A misspelt option or command gets the nearest known one of the command it was typed for
  (`--markdwn` -> `--markdown`, `sumary` -> `summary`), as pinbench's parser does
  (harness/cli/main.cpp); difflib's ratio decides what is near.

- `pinreport completion SHELL` prints a completion script made from the parser itself by shtab
  (as pinbench's `completion SHELL` does): commands, options, choices, and file or folder names
  where an argument is declared with `complete="file"` or `complete="folder"`.

cli.py builds the parser from ArgumentParser below; nothing else differs from argparse.
"""

import argparse
import difflib
import sys
from collections.abc import Iterable, Sequence

import shtab

from pinreport.base.streams import err

EXIT_USAGE = 2  # argparse's own code for a usage error, README.md's "bad input"
# What an argument's value completes to (ArgumentParser.add_argument's `complete=`).
COMPLETIONS = {"file": shtab.FILE, "folder": shtab.DIRECTORY}
# The shells `pinreport completion` writes a script for: those of pinbench's that shtab knows.
COMPLETION_SHELLS = ("bash", "zsh")


def nearest(word: str, known: Iterable[str]) -> str | None:
    """The known name closest to `word` (an option without its `=value`), or None."""
    name = word.split("=", 1)[0]
    found = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.6)
    return found[0] if found else None


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # noqa: SLF001 - argparse keeps its subcommands only there
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [s for action in parser._actions for s in action.option_strings]  # noqa: SLF001


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of `parser` for `shell` (one of COMPLETION_SHELLS)."""
    return shtab.complete(parser, shell=shell)


def add_completion_command(sub) -> None:
    """`completion SHELL`, as pinbench's; cli.py prints completion_script(parser, SHELL)."""
    c = sub.add_parser("completion", help=f"print a shell completion script ({', '.join(COMPLETION_SHELLS)})")
    c.add_argument("shell", choices=COMPLETION_SHELLS, help="the shell whose script to print")


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors are escaped and name the nearest option or command;
    add_argument takes `complete="file"` or `complete="folder"` for the completion script."""

    def add_argument(self, *args, complete: str | None = None, **kwargs):
        action = super().add_argument(*args, **kwargs)
        if complete is not None:
            action.complete = COMPLETIONS[complete]  # read by shtab; a misspelt kind is a KeyError
        return action

    def parse_known_args(self, args: Sequence[str] | None = None, namespace=None):
        args = list(sys.argv[1:] if args is None else args)
        commands = _subparsers(self)
        if commands:
            # An unknown option before the command (`pinreport --versoin`): named as such, not
            # as a missing command.
            for word in args:
                if word in commands or word == "--":
                    break
                if word.startswith("-") and not self._known_option(word):
                    self._unknown_in = self
                    self.error(f"unrecognized arguments: {word}")
        parsed, extras = super().parse_known_args(args, namespace)
        # The top parser sees a subcommand's unknown options only as extras: find that
        # subcommand, so that the hint comes from its options, not the top parser's.
        command = getattr(parsed, "command", None)
        self._unknown_in = _subparsers(self).get(command, self) if isinstance(command, str) else self
        return parsed, extras

    def _known_option(self, word: str) -> bool:
        """`word` names one of this parser's options (argparse's unambiguous prefixes too)."""
        name = word.split("=", 1)[0]
        options = _options(self)
        return name in options or (
            name.startswith("--") and self.allow_abbrev and sum(o.startswith(name) for o in options) == 1
        )

    def error(self, message: str):
        """One escaped usage line and one escaped error line with the nearest name; exit 2."""
        hint = ""
        if message.startswith("unrecognized arguments: "):
            where = getattr(self, "_unknown_in", None)
            options = (
                _options(where) if where else [o for p in [self, *_subparsers(self).values()] for o in _options(p)]
            )
            for word in message.removeprefix("unrecognized arguments: ").split():
                if word.startswith("-") and (near := nearest(word, options)):
                    hint = f"; did you mean {near}?"
                    break
        elif message.startswith("argument command: invalid choice: "):
            word = message.removeprefix("argument command: invalid choice: ").split(" (choose", 1)[0]
            if near := nearest(word.strip("'"), _subparsers(self)):
                hint = f"; did you mean {near}?"
        usage = self
        if hint or message.startswith("unrecognized arguments: "):
            usage = getattr(self, "_unknown_in", None) or self
        for line in usage.format_usage().splitlines():
            err(line)
        err(f"{self.prog}: error: {message}{hint}")
        sys.exit(EXIT_USAGE)
