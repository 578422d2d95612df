"""What the property tests (test_fuzz_*.py) put where a document has a value: JSON values of
every type, with the numbers and strings that broke readers before (1e308, 2^63, -1, a lone
control character, a line break), and mutations of a valid document at drawn paths."""

import json
from typing import Any

from hypothesis import strategies as st

EDGE_NUMBERS = [0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, -(2**63), 1e308, -1e308, 0.5, -0.0, 1e-300]
EDGE_TEXT = ["", "\x1b[2K\rFORGED", "a\nb", "\u202e", "..", "/", "ok", "disturbed", "unknown", "x" * 300]

scalars = (
    st.none()
    | st.booleans()
    | st.sampled_from(EDGE_NUMBERS)
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(EDGE_TEXT)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value in `doc` (keys and indices)."""
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def _set(doc: Any, path: tuple, value: Any, delete: bool) -> None:
    node = doc
    for part in path[:-1]:
        node = node[part]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value


@st.composite
def mutated(draw, doc: dict[str, Any], most: int = 3) -> dict[str, Any]:
    """A copy of `doc` with 1 to `most` values replaced, or removed, at drawn paths."""
    out = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, most))):
        every = paths(out)
        if not every:
            break
        path = draw(st.sampled_from(every))
        _set(out, path, draw(json_values), delete=draw(st.booleans()) and draw(st.booleans()))
    return out
