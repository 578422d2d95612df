"""Reading one results file: JSON, schema name and version, then the JSON Schema.

Every document is read as the current version (4: each metric carries its per-repeat samples).
An older one (1 to 3: summaries only) is upgraded by the harness, in one place for both
languages: `pinbench results upgrade -` (PINBENCH_EXE, else `pinbench` on PATH) rebuilds each
metric's samples from the repeats' snapshots, timings and data, and keeps them where they
summarise to the stored summary; a metric it cannot rebuild has `samples: null`: shown, never
judged (compare.py labels it "summary only"). pinreport derives no metric itself.

Every rejection is a BadInputError whose message names the file and, for schema problems,
the JSON path of the first problem, in the style of the C++ reader (docs/results-schema.md).

Strict JSON (parse_json): the readers on both sides accept exactly RFC 8259 JSON in UTF-8 with
no byte order mark, no duplicate key in any object, at most MAX_DEPTH nested arrays and
objects, integers in [-2^63, 2^64 - 1] and finite numbers; everything else ("NaN", "Infinity",
10^400, 1200 nested arrays, a BOM, invalid UTF-8 or a lone surrogate escape) is refused at the
door with "FILE: invalid JSON: ...". The C++ reader (harness/src/results/json_reader.hpp)
refuses the same: both test against harness/tests/fixtures/json-validity/. An older version's
bytes are the harness's to read strictly, as it upgrades them (_older_version_document).
"""

import json
import math
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import best_match

from pinreport.child import ChildFailed, run_bounded
from pinreport.errors import BadInputError
from pinreport.input_file import RESULTS_LIMIT, read_bounded
from pinreport.result import upgrade_cache
from pinreport.schema import (
    RESULTS_SCHEMA_NAME,
    RESULTS_SCHEMA_OLDEST_VERSION,
    RESULTS_SCHEMA_VERSION,
    results_json_schema_text,
)

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

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


def pinbench_executable() -> str | None:
    """The harness that upgrades older results files: $PINBENCH_EXE, else `pinbench` on PATH."""
    return os.environ.get("PINBENCH_EXE") or shutil.which("pinbench")


# `pinbench results upgrade -` of a real nightly file takes about 80 ms; a harness that has not
# answered in this long is stuck (a program that sleeps, a FIFO), and one that writes more than
# a results file may hold is not the harness (child.py).
UPGRADE_TIMEOUT_S = 60.0


def _upgraded_bytes(data: bytes, exe: str) -> tuple[int, bytes, str]:
    """(exit code, stdout, stderr) of `pinbench results upgrade -` on the document's bytes. A
    successful output is kept in the derived upgrade cache (pinreport.result.upgrade_cache: keyed by
    these bytes and the harness's own), since a store's nights are read again on every run.
    ChildFailed when the harness cannot be run, is stuck or writes too much: then not again in
    this process (every older night of a store would wait as long)."""
    if exe in _failed_harness:
        raise ChildFailed(_failed_harness[exe])
    kept_at = upgrade_cache.entry_path(exe, data)
    kept = upgrade_cache.lookup(kept_at)
    if kept is not None:
        return 0, kept, ""
    try:
        done = run_bounded([exe, "results", "upgrade", "-"], data, RESULTS_LIMIT, UPGRADE_TIMEOUT_S)
    except ChildFailed as e:
        _failed_harness[exe] = str(e)
        raise
    if done.code == 0:
        upgrade_cache.keep(kept_at, done.stdout)
    return done.code, done.stdout, done.stderr


_failed_harness: dict[str, str] = {}  # exe -> why it failed, for the rest of this process


def upgrade(doc: dict[str, Any], path: str, data: bytes | None = None) -> dict[str, Any]:
    """An older version's document as the current version, by the harness (module docstring).
    data: the bytes `doc` was parsed from, when at hand (handed over as they are instead of being
    serialised again). The harness's output is parsed with the plain JSON reader: it is strict
    JSON by construction (the harness writes it), and the strict one costs 3 to 4 times as much."""
    version = doc.get("schema_version")
    exe = pinbench_executable()
    if exe is None:
        raise BadInputError(
            path,
            f"results schema version {version} is read through `pinbench results upgrade`, and no pinbench "
            "was found (set PINBENCH_EXE or put pinbench on PATH)",
        )
    try:
        code, out, err = _upgraded_bytes(data if data is not None else json.dumps(doc).encode("utf-8"), exe)
    except ChildFailed as e:
        raise BadInputError(path, f"{exe} results upgrade (PINBENCH_EXE or PATH): {e}") from None
    if code != 0:
        # The harness names its input "(stdin)"; the reader of this message knows the file.
        why = err.strip().replace("(stdin): ", "", 1) or f"exit code {code}"
        if why.startswith("invalid JSON"):  # the strict reading of these bytes (_older_version_document), worded alike
            raise BadInputError(path, why)
        raise BadInputError(path, f"pinbench results upgrade refused it: {why}")
    try:
        return json.loads(out)
    except ValueError as e:
        raise BadInputError(path, f"pinbench results upgrade wrote invalid JSON: {e}") from None


def upgraded_before(data: bytes) -> dict[str, Any] | None:
    """The current version of these bytes when the harness upgraded them before (the upgrade
    cache holds only what it accepted: an older version's valid results file), else None; the
    caller then parses them. Spares the parse of the older bytes on every later read."""
    exe = pinbench_executable()
    kept = upgrade_cache.lookup(upgrade_cache.entry_path(exe, data)) if exe else None
    try:
        return json.loads(kept) if kept is not None else None
    except ValueError:
        return None


def _supported_version(doc: dict[str, Any]) -> int | None:
    """The document's schema_version when this build reads it (OLDEST..RESULTS_SCHEMA_VERSION,
    a JSON integer), else None."""
    version = doc.get("schema_version")
    readable = isinstance(version, int) and not isinstance(version, bool)
    return version if readable and RESULTS_SCHEMA_OLDEST_VERSION <= version <= RESULTS_SCHEMA_VERSION else None


def as_current_version(doc: dict[str, Any], path: str, data: bytes | None = None) -> dict[str, Any]:
    """The document in the current version: an older one upgraded (module docstring), a
    current one as it is. Every reader of a results document goes through here (the summary
    index alone keeps as stored the versions it reads alike: parse_results). data: the bytes
    `doc` was parsed from, when the caller has them (upgrade())."""
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version < RESULTS_SCHEMA_VERSION:
        return upgrade(doc, path, data)
    return doc


def metric_samples(run: dict[str, Any], metric: str) -> list[float] | None:
    """The metric's value in each ok repeat, in repeat order, as the file holds it; None when
    the run has no such metric or no samples of it (an older file's metric the upgrade could
    not rebuild)."""
    samples = (run.get("metrics", {}).get(metric) or {}).get("samples")
    return [float(v) for v in samples] if isinstance(samples, list) else None


def _check_sample_counts(doc: dict[str, Any], path: str) -> None:
    """Samples, where given, are one per summarised repeat (as the C++ reader checks)."""
    for i, run in enumerate(doc["runs"]):
        for name, m in run["metrics"].items():
            samples = m.get("samples")
            if isinstance(samples, list) and len(samples) != m["n"]:
                where = json_path(["runs", i, "metrics", name, "samples"])
                raise BadInputError(path, f"{where}: holds {len(samples)} samples where n is {m['n']}")


def only_globs(command: Any) -> list[str]:
    """The --only globs of a recorded command line ("--only G ...", "--only=G"), as the harness
    reads them (only_globs in harness/src/results/results_json.cpp)."""
    globs, in_only = [], False
    for a in command if isinstance(command, list) else []:
        a = str(a)
        if a.startswith("--only="):
            globs.append(a[7:])
            in_only = False
        elif a == "--only":
            in_only = True
        elif in_only and a and not a.startswith("-"):
            globs.append(a)
        else:
            in_only = False
    return globs


def check_results_rules(doc: dict[str, Any], path: str) -> None:
    """The rules of a valid results file beyond its JSON Schema (docs/results-schema.md, "Rules
    beyond the schema"), the same as the C++ reader's (check_results_rules in
    harness/src/results/results_json.cpp); both test against harness/tests/fixtures/results-validity/.
    BadInputError naming the file and the field of the first broken rule."""
    runs = doc["runs"]
    seen: set[str] = set()
    for i, run in enumerate(runs):
        rid, plan_id = run["id"], run["plan"]["id"]
        if rid != plan_id:
            raise BadInputError(path, f"{json_path(['runs', i, 'id'])}: '{rid}' differs from plan.id '{plan_id}'")
        if rid in seen:
            raise BadInputError(path, f"{json_path(['runs', i, 'id'])}: duplicate run id '{rid}'")
        seen.add(rid)
    scenarios = (doc.get("scenario") or {}).get("scenarios")
    # The scenario record names the scenarios the plan came from (a scenario file has at least one).
    named = (
        isinstance(scenarios, list)
        and len(scenarios) > 0
        and all(isinstance(s, dict) and isinstance(s.get("name"), str) for s in scenarios)
    )
    measured = doc.get("backend") == "cuda"
    if named and measured:
        names = {s["name"] for s in scenarios}
        for i, run in enumerate(runs):
            if run["plan"]["scenario"] not in names:
                where = json_path(["runs", i, "plan", "scenario"])
                raise BadInputError(
                    path, f"{where}: '{run['plan']['scenario']}' is not a scenario of scenario.scenarios"
                )
    if doc.get("complete") is not True:
        return
    if doc.get("interrupted") is not None:
        raise BadInputError(path, "complete: true, but interrupted is set (an interrupted file is partial)")
    if not runs:
        raise BadInputError(path, "complete: true, but runs is empty (a complete file holds every planned run)")
    commands = [doc.get("command")] + [p.get("command") for p in doc.get("resumed") or [] if isinstance(p, dict)]
    if named and measured and not any(only_globs(c) for c in commands):
        ran = {run["plan"]["scenario"] for run in runs}
        for k, s in enumerate(scenarios):
            if s["name"] not in ran:
                raise BadInputError(
                    path,
                    f"complete: true, but scenario.scenarios[{k}] ('{s['name']}') has no run "
                    "(a complete file holds every planned run)",
                )


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
def _fast_validator() -> Callable[[Any], bool]:
    """Whether a document passes the same schema, by jsonschema-rs (compiled Rust): about 1.3 ms
    a real nightly file against 50 ms for fastjsonschema's generated Python and 620 ms for
    jsonschema (docs/notes.md), which matters when `compare` checks a release of nights in full.
    It knows 2020-12 itself; jsonschema still words the error when a document fails, and a test
    (test_schema_validators.py) holds the two to the same verdict on many broken documents."""
    is_valid = jsonschema_rs.validator_for(json.loads(results_json_schema_text())).is_valid

    def passes(doc: Any) -> bool:
        try:
            return is_valid(doc)
        except (
            ValueError,
            TypeError,
            OverflowError,
        ):  # a value jsonschema-rs cannot convert: refused, jsonschema words it
            return False

    return passes


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
    only members those versions share (the summary index: store.summary_index.SUMMARY_AS_STORED_FROM)."""
    if not isinstance(doc, dict):
        raise BadInputError(path, "not a pinbench results file (the document is not a JSON object)")
    schema = doc.get("schema")
    if schema != RESULTS_SCHEMA_NAME:
        found = json.dumps(schema) if schema is not None else "missing"
        raise BadInputError(
            path, f"not a pinbench results file (schema is {found}, expected {json.dumps(RESULTS_SCHEMA_NAME)})"
        )
    version = doc.get("schema_version")
    if _supported_version(doc) is None:  # worded as the C++ reader (harness/src/results/results_json.cpp)
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
    if not _fast_validator()(doc):
        error = best_match(_validator().iter_errors(doc))
        if error is None:  # the two validators disagree: still refuse the document
            raise BadInputError(path, "refused by the results schema (jsonschema-rs), though jsonschema accepts it")
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        raise BadInputError(path, f"{json_path(error.absolute_path)}: {message}")
    _check_sample_counts(doc, path)
    check_results_rules(doc, path)
    return ResultsFile(path=path, doc=doc)


# The top-level "schema_version" member: the harness writes members in name order, so it is the
# last one in the file (after runs and scenario, where any other would be).
_VERSION_MEMBER = re.compile(rb'"schema_version"\s*:\s*([0-9]{1,3})\b')


def _older_version_document(data: bytes) -> dict[str, Any] | None:
    """The document of an older version's bytes by the plain JSON reader, else None (the caller
    reads them strictly: parse_json). An older version is read by `pinbench results upgrade`
    from these very bytes (upgrade(), given data), and the harness's reader refuses what the
    strict one refuses (both test against harness/tests/fixtures/json-validity/), so reading
    them strictly here as well would only word the same refusal twice; the plain reader takes a
    quarter of the time, and a night of a year-old store is read so once per machine."""
    at = data.rfind(b'"schema_version"')
    hint = _VERSION_MEMBER.match(data, at) if at >= 0 else None
    if hint is None or int(hint.group(1)) >= RESULTS_SCHEMA_VERSION:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    version = _supported_version(doc) if isinstance(doc, dict) and doc.get("schema") == RESULTS_SCHEMA_NAME else None
    return doc if version is not None and version < RESULTS_SCHEMA_VERSION else None


def results_from_bytes(data: bytes, path: str) -> ResultsFile:
    """A results file from bytes already read (the store hashes the same bytes): strict JSON,
    the results schema and rules; an older version's strict reading is the harness's, as it
    upgrades these bytes (_older_version_document)."""
    doc = _older_version_document(data)
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
