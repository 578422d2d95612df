"""The baseline store, read side (the harness writes it: harness/include/pinbench/store.hpp).

Layout:
    STORE/store.json   {"schema": "pinbench.store", "schema_version": 1}
    STORE/<namespace>/<platform>/<driver_model>/<gpu>/<n>gpu/<release>/<YYYYMMDDTHHMMSSZ>-<hash12>.json
with namespace "real" for measurements and "replay" for replayed files, which are never
baselines. Each file is a complete results document. entry_path() is the one function that
builds these paths. Reading never stops at a bad file: it is named in `problems` and skipped.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pinreport.environment import StoreKey, store_key
from pinreport.errors import BadInputError
from pinreport.load import ResultsFile, load_results
from pinreport.schema import STORE_SCHEMA_NAME, STORE_SCHEMA_VERSION

REAL = "real"
REPLAY = "replay"
STORE_FILE = "store.json"

_SAFE_COMPONENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


UNKNOWN_TIME = "unknown-started-at"
_FILE_NAME = re.compile(r"^(\d{8}T\d{6}Z|unknown-started-at)-([0-9a-f]{12})\.json$")
_ISO_UTC = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$")


def compact_timestamp(started_at: object) -> str:
    """2025-06-01T10:00:00Z (also with fractional seconds) -> 20250601T100000Z;
    "unknown-started-at" when it is not such a time."""
    m = _ISO_UTC.match(started_at) if isinstance(started_at, str) else None
    return "{}{}{}T{}{}{}Z".format(*m.groups()) if m else UNKNOWN_TIME


def entry_path(root: str | Path, key: StoreKey, started_at: object, hash12: str, namespace: str = REAL) -> Path:
    """The path of one stored results file. Every store path is built here."""
    if namespace not in (REAL, REPLAY):
        raise ValueError(f"unknown store namespace {namespace!r}")
    if not re.fullmatch(r"[0-9a-f]{12}", hash12):
        raise ValueError(f"not a 12-digit hex hash: {hash12!r}")
    parts = [key.platform, key.driver_model, key.gpu, key.gpu_count, key.release]
    for p in parts:
        if not _SAFE_COMPONENT.match(p) or p in (".", ".."):
            raise ValueError(f"unsafe store path component {p!r}")
    return Path(root, namespace, *parts, f"{compact_timestamp(started_at)}-{hash12}.json")


def content_hash(data: bytes) -> str:
    """The first 12 hex digits of the 64-bit FNV-1a hash of the bytes (store.md)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"[:12]


def store_marker() -> dict[str, Any]:
    return {"schema": STORE_SCHEMA_NAME, "schema_version": STORE_SCHEMA_VERSION}


def measurement_id(doc: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies one measurement however its file was copied: its start time and the
    nonces of its repeats (each ties a child's report to one repeat)."""
    nonces = tuple(r.get("nonce") for run in doc.get("runs", []) for r in run.get("repeats", []))
    return (doc.get("started_at"), nonces)


@dataclass(frozen=True)
class StoreEntry:
    path: str
    namespace: str
    results: ResultsFile
    key: StoreKey

    @property
    def doc(self) -> dict[str, Any]:
        return self.results.doc

    @property
    def started_at(self) -> str:
        return self.doc.get("started_at", "")


@dataclass
class StoreContents:
    root: str
    entries: list[StoreEntry] = field(default_factory=list)
    problems: list[BadInputError] = field(default_factory=list)


def _check_marker(root: Path) -> BadInputError | None:
    marker = root / STORE_FILE
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
    except OSError as e:
        return BadInputError(str(marker), f"not a pinbench store (cannot read {STORE_FILE}: {e.strerror})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        return BadInputError(str(marker), f"invalid JSON: {e}")
    if not isinstance(doc, dict) or doc.get("schema") != STORE_SCHEMA_NAME:
        found = doc.get("schema") if isinstance(doc, dict) else None
        return BadInputError(
            str(marker),
            f"not a pinbench store (schema is {json.dumps(found)}, expected {json.dumps(STORE_SCHEMA_NAME)})",
        )
    if doc.get("schema_version") != STORE_SCHEMA_VERSION:
        return BadInputError(
            str(marker),
            f"store schema version {json.dumps(doc.get('schema_version'))} is not "
            f"supported (this build reads version {STORE_SCHEMA_VERSION})",
        )
    return None


def _path_problem(root: Path, path: Path, namespace: str, key: StoreKey, started_at: object) -> str | None:
    """Why a readable results file does not belong where it lies; None when it does."""
    parts = path.relative_to(root / namespace).parts
    m = _FILE_NAME.match(path.name)
    if len(parts) != 6 or m is None:
        return f"not at {namespace}/<platform>/<driver model>/<gpu>/<n>gpu/<release>/<time>-<hash>.json"
    path_key = StoreKey(*parts[:5])
    if path_key != key:
        return f"its environment gives the key {'/'.join(_key_parts(key))}, its path {'/'.join(parts[:5])}"
    if m.group(1) != compact_timestamp(started_at):
        return f"its started_at {started_at!r} does not match the time {m.group(1)} in its name"
    return None


def _key_parts(key: StoreKey) -> list[str]:
    return [key.platform, key.driver_model, key.gpu, key.gpu_count, key.release]


def read_store(root: str | Path, namespaces: tuple[str, ...] = (REAL,), *, verify_hashes: bool = True) -> StoreContents:
    """Every usable results file of the given namespaces, oldest first; the rest in problems.

    A file is a problem (named, skipped) when it is not a valid results file, holds replayed
    data under real/ or measured data under replay/, lies at a path its key does not give, or
    its bytes do not match the hash in its name. A store whose store.json is missing or of
    another schema or version is not read at all (its layout is unknown).

    verify_hashes=False skips the content hash (pure-Python FNV-1a: about 0.3 s per real 1 MB
    file); `pinreport html` uses it for the history of many nights, and `pinbench store list`
    checks the same hashes in C++."""
    root = Path(root)
    contents = StoreContents(root=str(root))
    problem = _check_marker(root)
    if problem is not None:
        contents.problems.append(problem)
        return contents
    for namespace in namespaces:
        base = root / namespace
        if not base.is_dir():
            continue
        # Writers rename complete files into place; their temporaries (*.json.tmp.*) are skipped.
        for path in sorted(base.rglob("*.json")):
            try:
                results = load_results(path)
            except BadInputError as e:
                contents.problems.append(e)
                continue
            if results.replayed != (namespace == REPLAY):
                what = (
                    "replayed data under real/: never a baseline"
                    if results.replayed
                    else ("measured data under replay/")
                )
                contents.problems.append(BadInputError(str(path), what))
                continue
            key = store_key(results.doc.get("environment") or {})
            why = _path_problem(root, path, namespace, key, results.doc.get("started_at"))
            m = _FILE_NAME.match(path.name)
            if why is None and m and verify_hashes and content_hash(path.read_bytes()) != m.group(2):
                why = "its bytes do not match the hash in its name (edited after it was stored?)"
            if why is not None:
                contents.problems.append(BadInputError(str(path), why))
                continue
            contents.entries.append(StoreEntry(str(path), namespace, results, key))
    contents.entries.sort(key=lambda e: (e.started_at, e.path))
    return contents
