"""Strict JSON: the one reading of the bytes of every pinbench document pinreport reads.

The readers on both sides accept exactly RFC 8259 JSON in UTF-8 with no byte order mark, no
duplicate key in any object, at most MAX_DEPTH nested arrays and objects, integers in
[-2^63, 2^64 - 1] and finite numbers; everything else ("NaN", "Infinity", 10^400, 1200 nested
arrays, a BOM, invalid UTF-8 or a lone surrogate escape) is refused at the door with
"FILE: invalid JSON: ...". The C++ reader (harness/src/json/) refuses the same: both test
against harness/tests/fixtures/json-validity/.
"""

import json
import math
import re
from typing import Any

from pinreport.base.errors import BadInputError

# The limits of strict JSON (module docstring); the C++ reader's are the same constants.
MAX_DEPTH = 64


INT_MIN, INT_MAX = -(2**63), 2**64 - 1


_BOM = b"\xef\xbb\xbf"


# The slower checks run only where the text holds what they look for: a \u escape of a
# surrogate (only then can a string hold a lone surrogate); a run of 19 digits or a 3-digit
# exponent (only then can a number be out of range).
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


_LONG_NUMBER = re.compile(rb"[0-9]{19}|[eE][+-]?[0-9]{3}")


class _Refused(ValueError):
    """Raised inside the json module's hooks: the document is not strict JSON."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _Refused(f"duplicate key {_short(json.dumps(k))} in an object")
            seen.add(k)
    return out


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    # Bounded before int(): Python refuses to convert more than 4300 digits with a ValueError.
    value = int(text) if len(text) <= 21 else None
    if value is None or not INT_MIN <= value <= INT_MAX:
        raise _Refused(f"number out of range: {_short(text)} (integers must lie in [-2^63, 2^64-1])")
    return value


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number out of range: {_short(text)} (not a finite double)")
    return value


def _check_depth(doc: Any) -> None:
    """No more than MAX_DEPTH nested arrays and objects; a walk of the containers, no recursion."""
    level, depth = [doc], 1
    while level:
        if depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels")
        nxt = []
        for value in level:
            children = value.values() if isinstance(value, dict) else value
            nxt.extend(c for c in children if isinstance(c, (dict, list)))
        level, depth = nxt, depth + 1


def _check_strings(doc: Any) -> None:
    stack = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for k in value:
                _check_string(k)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            _check_string(value)


def _check_string(s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refused("a string escapes a lone UTF-16 surrogate (not valid Unicode)") from None


def parse_json(data: bytes, path: str) -> Any:
    """Strict JSON (module docstring) from the file's bytes; BadInputError naming `path`."""
    if data.startswith(_BOM):
        raise BadInputError(path, "invalid JSON: starts with a UTF-8 byte order mark (BOM); write it without one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInputError(path, f"invalid JSON: not valid UTF-8 at byte {e.start}") from None
    try:
        numbers = {"parse_int": _integer, "parse_float": _number} if _LONG_NUMBER.search(data) else {}
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_constant, **numbers)
        if isinstance(doc, (dict, list)):
            _check_depth(doc)
        if _SURROGATE_ESCAPE.search(data):
            _check_strings(doc)
    except json.JSONDecodeError as e:
        raise BadInputError(path, f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except _Refused as e:
        raise BadInputError(path, f"invalid JSON: {e}") from None
    except RecursionError:
        raise BadInputError(path, f"invalid JSON: nested deeper than {MAX_DEPTH} levels") from None
    return doc
