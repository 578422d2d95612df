"""Reading one results file: JSON, schema name and version, then the JSON Schema.

Versions 1 and 2 are read alike: version 2 adds the optional plan.params and repeats[].data
(scenario kinds, docs/kinds.md); a version 1 run is an overhead run without them.

Every rejection is a BadInputError whose message names the file and, for schema problems,
the JSON path of the first problem, in the style of the C++ reader (docs/results-schema.md).
"""

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
from jsonschema.exceptions import best_match

from pinreport.errors import BadInputError
from pinreport.schema import (
    RESULTS_SCHEMA_NAME,
    RESULTS_SCHEMA_OLDEST_VERSION,
    RESULTS_SCHEMA_VERSION,
    results_json_schema_text,
)

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ResultsFile:
    path: str
    doc: dict[str, Any]

    @property
    def replayed(self) -> bool:
        """Replayed data is never a measurement (docs/replay.md); callers label it REPLAYED."""
        env = self.doc.get("environment") or {}
        return self.doc.get("backend") == "replay" or env.get("replayed") is True

    @property
    def runs(self) -> list[dict[str, Any]]:
        return self.doc["runs"]


@cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(results_json_schema_text())
    return jsonschema.Draft202012Validator(schema)


@cache
def _fast_validator():
    """The same schema compiled to Python by fastjsonschema: about 14x faster on a real results
    file, which matters when a store of many nights is read. It knows draft-07, whose meaning
    equals 2020-12 for every keyword the schema uses ($ref into $defs, if/then/else, const,
    oneOf, allOf); jsonschema still words the error when a document fails."""
    schema = json.loads(results_json_schema_text())
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return fastjsonschema.compile(schema)


def json_path(parts) -> str:
    """["runs", 0, "metrics", "cost.x"] -> 'runs[0].metrics["cost.x"]' (as the C++ reader)."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENTIFIER.match(p):
            out += ("." if out else "") + p
        else:
            out += "[" + json.dumps(p) + "]"
    return out or "(document)"


def parse_results(doc: Any, path: str) -> ResultsFile:
    """Checks an already-parsed document; raises BadInputError naming `path`."""
    if not isinstance(doc, dict):
        raise BadInputError(path, "not a pinbench results file (the document is not a JSON object)")
    schema = doc.get("schema")
    if schema != RESULTS_SCHEMA_NAME:
        found = json.dumps(schema) if schema is not None else "missing"
        raise BadInputError(
            path, f"not a pinbench results file (schema is {found}, expected {json.dumps(RESULTS_SCHEMA_NAME)})"
        )
    version = doc.get("schema_version")
    supported = (
        isinstance(version, int)
        and not isinstance(version, bool)
        and RESULTS_SCHEMA_OLDEST_VERSION <= version <= RESULTS_SCHEMA_VERSION
    )
    if not supported:  # worded as the C++ reader (harness/src/results/results_json.cpp)
        raise BadInputError(
            path,
            f"results schema version {json.dumps(version)} is not supported "
            f"(this build reads versions {RESULTS_SCHEMA_OLDEST_VERSION} to {RESULTS_SCHEMA_VERSION})",
        )
    try:
        _fast_validator()(doc)
        return ResultsFile(path=path, doc=doc)
    except fastjsonschema.JsonSchemaException as fast_error:
        error = best_match(_validator().iter_errors(doc))
        if error is None:  # the two validators disagree: still refuse the document
            raise BadInputError(path, str(fast_error)) from None
    if error is not None:
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        raise BadInputError(path, f"{json_path(error.absolute_path)}: {message}")
    return ResultsFile(path=path, doc=doc)


def load_results(path: str | Path) -> ResultsFile:
    """Reads and validates a results file; BadInputError naming the file on any problem."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInputError(name, f"cannot read: {e}") from e
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInputError(name, f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from e
    return parse_results(doc, name)
