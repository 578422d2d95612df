"""Text from a file, made safe to show on a terminal: the one function every command's output
passes through (streams.py) and that formatters apply to a value that might hold a line break.

A results file, a trace or a store entry is written by whoever made it: its strings
(driver.release, a run's command, a scenario's description, an error text, a file name) may
hold an escape sequence that recolours the answer, a carriage return that overwrites a line, or
a line break that forges one. Every C0 and C1 control character (ESC, CR, LF, BEL, NUL, DEL ...)
and every Unicode bidirectional override or line separator is shown as its escape (`\\x1b`,
`\\r`, `\\u202e`), so the text reads as it is and nothing is hidden. HTML is escaped by Jinja2
(autoescape) instead; a test holds both.
"""

import re
from collections.abc import Iterable

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    code = ord(c)
    return _NAMED.get(c) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def terminal_safe(text: object, keep: str = "") -> str:
    """`text` with every control character escaped except those in `keep` (the output layer
    keeps the formatters' own line breaks and tabs; a value keeps none)."""
    s = str(text)
    if not keep:
        return _UNSAFE.sub(_escape, s)
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), s)


def terminal_lines(lines: Iterable[object]) -> str:
    """A formatter's lines as one text: each line made terminal-safe whole, so that a line break
    inside a value (a release, a reason, a file name) is shown as `\\n` and never starts a line
    of its own, then each ended by a line break."""
    return "".join(terminal_safe(line) + "\n" for line in lines)
