"""strict_json.py: the one JSON reading (the shared fixtures' verdicts are in test_json_validity.py)."""

import pytest
from pinreport.base.errors import BadInputError
from pinreport.readers.strict_json import MAX_DEPTH, parse_json


def test_plain_json_is_read_as_written():
    assert parse_json(b'{"a": [1, 2.5, "x", null, true]}', "f.json") == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"a": 1, "a": 2}', 'f.json: invalid JSON: duplicate key "a" in an object'),
        (b"[NaN]", "f.json: invalid JSON: NaN is not a JSON number"),
        (b"[1e400]", "f.json: invalid JSON: number out of range: 1e400 (not a finite double)"),
        (b"[18446744073709551616]", "f.json: invalid JSON: number out of range: 18446744073709551616"),
        (b"\xef\xbb\xbf{}", "f.json: invalid JSON: starts with a UTF-8 byte order mark (BOM)"),
        (b'["\\ud800"]', "f.json: invalid JSON: a string escapes a lone UTF-16 surrogate"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), f"f.json: invalid JSON: nested deeper than {MAX_DEPTH}"),
        (b"{", "f.json: invalid JSON at line 1, column 2"),
    ],
)
def test_refusals_name_the_file_and_the_reason(data, message):
    with pytest.raises(BadInputError) as e:
        parse_json(data, "f.json")
    assert str(e.value).startswith(message)


def test_the_depth_limit_itself_is_allowed():
    assert parse_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, "f.json") is not None
