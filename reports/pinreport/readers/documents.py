"""Reading a pinbench document other than a results file (a trace, a budget document), as results
files are read (results.py): bounded, strict JSON, its schema name and version, then its JSON
Schema; BadInputError "FILE: FIELD PATH: message" on any problem."""

from pathlib import Path
from typing import Any

from pinreport.base.errors import BadInputError
from pinreport.base.input_file import read_bounded
from pinreport.base.schema import DocumentSchema
from pinreport.readers.strict_json import parse_json


def read_versioned_document(
    path: str | Path,
    limit: int,
    schema: str,
    versions: tuple[int, ...],
    shown_versions: object,
    what: str,
    checked_by: DocumentSchema,
) -> dict[str, Any]:
    """A pinbench document other than a results file (a trace, a budget), read as results files
    are: bounded (`limit`), strict JSON, its `schema` name and a `version` in `versions`, then
    `checked_by` (base/schema.schema_of); BadInputError "FILE: FIELD PATH: message" on any
    problem. `what` names the kind in the messages ("trace", "budget"), `shown_versions` the
    versions this pinreport reads."""
    p = str(path)
    try:
        data = read_bounded(path, limit)
    except OSError as e:
        raise BadInputError(p, f"cannot read: {e.strerror or e}") from None
    return versioned_document_from_bytes(data, p, schema, versions, shown_versions, what, checked_by)


def versioned_document_from_bytes(
    data: bytes,
    p: str,
    schema: str,
    versions: tuple[int, ...],
    shown_versions: object,
    what: str,
    checked_by: DocumentSchema,
) -> dict[str, Any]:
    """read_versioned_document() of bytes already read (a stored budget: the store hashes the same
    bytes); `p` names them in the messages."""
    doc = parse_json(data, p)
    if not isinstance(doc, dict) or doc.get("schema") != schema:
        raise BadInputError(p, f"not a pinbench {what} (schema is not {schema!r})")
    version = doc.get("version")
    if isinstance(version, bool) or version not in versions:
        raise BadInputError(p, f"{what} version {version!r} is not understood (this pinreport reads {shown_versions})")
    checked_by.check(doc, p)
    return doc
