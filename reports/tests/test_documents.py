"""documents.py: a pinbench document other than a results file, read as results files are:
bounded, strict JSON, its schema name and version, then its JSON Schema; one line naming the
file (and the field) for every refusal."""

import json

import pytest
from pinreport.base.errors import BadInputError
from pinreport.base.schema import DocumentSchema
from pinreport.readers.documents import read_versioned_document

SCHEMA = {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}}


def _read(path, limit=1 << 20):
    return read_versioned_document(path, limit, "kind", (1,), 1, "thing", DocumentSchema(SCHEMA))


def test_a_valid_document_is_read(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schema": "kind", "version": 1, "x": 3}))
    assert _read(path) == {"schema": "kind", "version": 1, "x": 3}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1], "not a pinbench thing (schema is not 'kind')"),
        ({"schema": "other", "version": 1}, "not a pinbench thing (schema is not 'kind')"),
        ({"schema": "kind", "version": 2}, "thing version 2 is not understood (this pinreport reads 1)"),
        ({"schema": "kind", "version": True}, "thing version True is not understood (this pinreport reads 1)"),
        ({"schema": "kind", "version": 1, "x": "3"}, "x: '3' is not of type 'integer'"),
    ],
)
def test_each_refusal_is_one_line_naming_the_file(tmp_path, doc, message):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError) as e:
        _read(path)
    assert str(e.value) == f"{path}: {message}"


def test_a_file_over_its_limit_or_not_json_is_refused_unread(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("{" * 10)
    with pytest.raises(BadInputError, match="larger than the limit"):
        _read(path, limit=5)
    with pytest.raises(BadInputError, match="invalid JSON"):
        _read(path)
