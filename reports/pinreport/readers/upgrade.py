"""An older results file as the current version, by the harness.

Every document is read as the current version (5; version 4 reads as it is: each metric carries
its per-repeat samples, and what 5 adds, the runs' stopping record and the repeats' phases, is
only shown). An older one (1 to 3: summaries only) is upgraded by the harness, in one place for both
languages: `pinbench results upgrade -` (PINBENCH_EXE, else `pinbench` on PATH) rebuilds each
metric's samples from the repeats' snapshots, timings and data, and keeps them where they
summarise to the stored summary; a metric it cannot rebuild has `samples: null`: shown, never
judged (compare.py labels it "summary only"). pinreport derives no metric itself. What the
harness upgraded is kept (upgrade_cache.py), since a store's nights are read again on every run.
"""

import json
import os
import re
import shutil
from typing import Any

from pinreport.base.child import ChildFailed, run_bounded
from pinreport.base.errors import BadInputError
from pinreport.base.input_file import RESULTS_LIMIT
from pinreport.base.schema import (
    RESULTS_SCHEMA_NAME,
    RESULTS_SCHEMA_OLDEST_VERSION,
    RESULTS_SCHEMA_SAMPLES_VERSION,
    RESULTS_SCHEMA_VERSION,
)
from pinreport.readers import upgrade_cache


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
        if why.startswith("invalid JSON"):  # the strict reading of these bytes (older_version_document), worded alike
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


def supported_version(doc: dict[str, Any]) -> int | None:
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
    if isinstance(version, int) and not isinstance(version, bool) and version < RESULTS_SCHEMA_SAMPLES_VERSION:
        return upgrade(doc, path, data)
    return doc


# The top-level "schema_version" member: the harness writes members in name order, so it is the
# last one in the file (after runs and scenario, where any other would be).
_VERSION_MEMBER = re.compile(rb'"schema_version"\s*:\s*([0-9]{1,3})\b')


def older_version_document(data: bytes) -> dict[str, Any] | None:
    """The document of an older version's bytes by the plain JSON reader, else None (the caller
    reads them strictly: parse_json). An older version is read by `pinbench results upgrade`
    from these very bytes (upgrade(), given data), and the harness's reader refuses what the
    strict one refuses (both test against harness/tests/fixtures/json-validity/), so reading
    them strictly here as well would only word the same refusal twice; the plain reader takes a
    quarter of the time, and a night of a year-old store is read so once per machine."""
    at = data.rfind(b'"schema_version"')
    hint = _VERSION_MEMBER.match(data, at) if at >= 0 else None
    if hint is None or int(hint.group(1)) >= RESULTS_SCHEMA_SAMPLES_VERSION:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    version = supported_version(doc) if isinstance(doc, dict) and doc.get("schema") == RESULTS_SCHEMA_NAME else None
    return doc if version is not None and version < RESULTS_SCHEMA_SAMPLES_VERSION else None
