"""Reading one results file: the bounded read, strict JSON (strict_json.py), the schema name and
version, an older version upgraded by the harness (upgrade.py), then the JSON Schema and the
rules beyond it (validate.py); the value every stage reads, ResultsFile.

Every rejection is a BadInputError whose message names the file and, for schema problems,
the JSON path of the first problem, in the style of the C++ reader (docs/results-schema.md).
"""

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from pinreport.base.errors import BadInputError
from pinreport.base.input_file import RESULTS_LIMIT, read_bounded
from pinreport.base.schema import RESULTS_SCHEMA_NAME, RESULTS_SCHEMA_OLDEST_VERSION, RESULTS_SCHEMA_VERSION
from pinreport.readers.environment import Environment
from pinreport.readers.model import Run
from pinreport.readers.strict_json import parse_json
from pinreport.readers.upgrade import as_current_version, older_version_document, supported_version
from pinreport.readers.validate import check_results, json_path


@dataclass(frozen=True)
class ResultsFile:
    path: str
    doc: dict[str, Any]

    @property
    def replayed(self) -> bool:
        """Replayed data is never a measurement (docs/replay.md); callers label it REPLAYED."""
        return self.doc.get("backend") == "replay" or self.environment.replayed

    @cached_property
    def environment(self) -> Environment:
        """The environment record, read once."""
        return Environment.from_json(self.doc.get("environment"))

    @cached_property
    def runs(self) -> tuple[Run, ...]:
        """The runs, read once into typed values (model.py), in the file's order."""
        return tuple(Run.from_json(r) for r in self.doc.get("runs", []))

    @cached_property
    def _runs_by_id(self) -> dict[str, Run]:
        out: dict[str, Run] = {}
        for run in self.runs:
            out.setdefault(run.id, run)
        return out

    def run(self, run_id: str) -> Run | None:
        """The run with this id (the first, where a file breaks the rule of unique ids), or None:
        looked up in an index built once, not by a scan of the runs (compare asks it for every run
        of every baseline file)."""
        return self._runs_by_id.get(run_id)


def read_versioned_document(
    path: str | Path,
    limit: int,
    schema: str,
    versions: tuple[int, ...],
    shown_versions: object,
    what: str,
    validator: jsonschema.protocols.Validator,
) -> dict[str, Any]:
    """A pinbench document other than a results file (a trace, a budget), read as results files
    are: bounded (`limit`), strict JSON, its `schema` name and a `version` in `versions`, then
    `validator`; BadInputError "FILE: FIELD PATH: message" on any problem. `what` names the kind
    in the messages ("trace", "budget"), `shown_versions` the versions this pinreport reads."""
    p = str(path)
    try:
        data = read_bounded(path, limit)
    except OSError as e:
        raise BadInputError(p, f"cannot read: {e.strerror or e}") from None
    return versioned_document_from_bytes(data, p, schema, versions, shown_versions, what, validator)


def versioned_document_from_bytes(
    data: bytes,
    p: str,
    schema: str,
    versions: tuple[int, ...],
    shown_versions: object,
    what: str,
    validator: jsonschema.protocols.Validator,
) -> dict[str, Any]:
    """read_versioned_document() of bytes already read (a stored budget: the store hashes the same
    bytes); `p` names them in the messages."""
    doc = parse_json(data, p)
    if not isinstance(doc, dict) or doc.get("schema") != schema:
        raise BadInputError(p, f"not a pinbench {what} (schema is not {schema!r})")
    version = doc.get("version")
    if isinstance(version, bool) or version not in versions:
        raise BadInputError(p, f"{what} version {version!r} is not understood (this pinreport reads {shown_versions})")
    error = best_match(validator.iter_errors(doc))
    if error is not None:
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        raise BadInputError(p, f"{json_path(error.absolute_path)}: {message}")
    return doc


def parse_results(
    doc: Any,
    path: str,
    data: bytes | None = None,
    *,
    checked_by_writer: bool = False,
    as_stored_from: int | None = None,
) -> ResultsFile:
    """Checks an already-parsed document; raises BadInputError naming `path`. data: the bytes it
    was parsed from, if at hand (as_current_version). checked_by_writer: these bytes passed the
    harness's reader when they were stored (docs/store.md, "What a stored file's name vouches
    for"): the schema name and version are checked and an older version upgraded, but the JSON
    Schema and the rules beyond it are not run again. as_stored_from (with checked_by_writer): a
    version from which on the document is kept as stored, not upgraded, for a reader that reads
    only members those versions share (the history index: store.history_index.SUMMARY_AS_STORED_FROM)."""
    if not isinstance(doc, dict):
        raise BadInputError(path, "not a pinbench results file (the document is not a JSON object)")
    schema = doc.get("schema")
    if schema != RESULTS_SCHEMA_NAME:
        found = json.dumps(schema) if schema is not None else "missing"
        raise BadInputError(
            path, f"not a pinbench results file (schema is {found}, expected {json.dumps(RESULTS_SCHEMA_NAME)})"
        )
    version = doc.get("schema_version")
    if supported_version(doc) is None:  # worded as the C++ reader (harness/src/results/results_json.cpp)
        raise BadInputError(
            path,
            f"results schema version {json.dumps(version)} is not supported "
            f"(this build reads versions {RESULTS_SCHEMA_OLDEST_VERSION} to {RESULTS_SCHEMA_VERSION})",
        )
    if checked_by_writer and as_stored_from is not None and version >= as_stored_from:
        return ResultsFile(path=path, doc=doc)
    doc = as_current_version(doc, path, data)
    if checked_by_writer:
        return ResultsFile(path=path, doc=doc)
    check_results(doc, path)
    return ResultsFile(path=path, doc=doc)


def results_from_bytes(data: bytes, path: str) -> ResultsFile:
    """A results file from bytes already read (the store hashes the same bytes): strict JSON,
    the results schema and rules; an older version's strict reading is the harness's, as it
    upgrades these bytes (older_version_document)."""
    doc = older_version_document(data)
    return parse_results(parse_json(data, path) if doc is None else doc, path, data)


def load_results(path: str | Path) -> ResultsFile:
    """Reads and validates a results file; BadInputError naming the file on any problem (a file
    that is not a regular file or is larger than input_file.RESULTS_LIMIT is refused unread)."""
    name = str(path)
    try:
        data = read_bounded(path, RESULTS_LIMIT)
    except OSError as e:
        raise BadInputError(name, f"cannot read: {e.strerror or e}") from e
    return results_from_bytes(data, name)
