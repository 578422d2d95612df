"""Byte sizes with units, spelled as in scenario files (docs/scenario-format.md)."""

import re
from fractions import Fraction

from pinreport.base.errors import UsageError

_UNITS = {
    "B": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
}
_SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?) ?([A-Za-z]+)$")
# The largest size, as the harness's parse_size (harness/src/scenario/units.cpp): 2^64 - 1 bytes.
MAX_SIZE = 2**64 - 1


def as_number(value: object) -> float | None:
    """A JSON number as a float; None for anything else (a bool is not a number here)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def parse_size(text: str) -> int:
    """ "2GiB", "64 MiB", "1.5GiB" -> bytes; a whole number of bytes in [1, MAX_SIZE] with a
    known unit."""
    m = _SIZE.match(text.strip()) if len(text) <= 64 else None
    if not m or m.group(2) not in _UNITS:
        shown = text if len(text) <= 64 else text[:61] + "..."
        raise UsageError(f"not a size: {shown!r} (expected a number and a unit such as 64MiB or 2GiB)")
    value = Fraction(m.group(1)) * _UNITS[m.group(2)]
    if value.denominator != 1 or value <= 0:
        raise UsageError(f"not a whole positive number of bytes: {text!r}")
    if value > MAX_SIZE:
        raise UsageError(f"too large: {text!r} (at most 2^64 - 1 bytes)")
    return int(value)


def format_bytes(n: float) -> str:
    """Human-readable, signed, binary units: 8388608 -> "8.00 MiB"."""
    sign = "-" if n < 0 else ""
    n = abs(n)
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        if n >= _UNITS[unit]:
            return f"{sign}{n / _UNITS[unit]:.2f} {unit}"
    return f"{sign}{n:.0f} B"


def format_value(v: float, unit: str) -> str:
    """A metric value in its unit (results metric units: bytes, ms, ratio, count)."""
    if unit == "bytes":
        return format_bytes(v)
    if unit == "ratio":
        return f"{v:.4g}"
    if unit == "count":
        return f"{v:g}"
    return f"{v:.4g} {unit}".strip()


def format_delta(v: float, unit: str) -> str:
    """A signed change in the metric's unit."""
    if unit == "bytes":
        return format_bytes(v)
    if unit in ("ratio", "count"):
        return f"{v:+.4g}"
    return f"{v:+.4g} {unit}".strip()
