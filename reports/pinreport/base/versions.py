"""Driver release ordering: numeric, component by component ("566.36" < "572.16" < "580.159.04").

A release is split at dots; each component compares by its leading number, then by any text
after it ("999.01-replayed" sorts after "999.01"). A release that is a prefix of another sorts
first ("580.65" < "580.65.06"). Text is never compared as a whole string, so "580.9" < "580.10".
"""

import re
from collections.abc import Iterable

_COMPONENT = re.compile(r"^([0-9]+)(.*)$")


def release_key(release: str) -> tuple[tuple[int, str], ...]:
    """Sort key of a release string; ValueError when a component has no leading number."""
    if not release:
        raise ValueError("empty driver release")
    key = []
    for part in release.split("."):
        m = _COMPONENT.match(part)
        if not m:
            raise ValueError(f"not a driver release: {release!r}")
        key.append((int(m.group(1)), m.group(2)))
    return tuple(key)


def is_release(text: object) -> bool:
    if not isinstance(text, str):
        return False
    try:
        release_key(text)
    except ValueError:
        return False
    return True


def previous_release(current: str, releases: Iterable[str]) -> str | None:
    """The highest release strictly older than `current`, or None."""
    ck = release_key(current)
    older = [r for r in set(releases) if is_release(r) and release_key(r) < ck]
    return max(older, key=release_key) if older else None
