"""The history index: what `pinreport html` charts of every stored night, without reading every
night again (docs/store.md, "The history index").

One file per group, STORE/index/real/<platform>/<driver model>/<gpu>/<n>gpu.json, derived from
the stored files and never their source of truth: deleting it costs one rebuild. Each stored
file has a row: its size, mtime, ctime and inode when it was checked, and either the problem
that makes it unusable or its summary (night_summary). A file is read and checked (place, hash,
and the results checks its name does not vouch for: store.check_stored_file) once; it is read
again only when its size, mtime, ctime or inode changed (an edit, a copy, a restore, a fresh
checkout of a store kept on a git branch), or when INDEX_VERSION changed, and then its row is
kept when its bytes still give the XXH3 hash in its name (GroupIndex._recheck). The file is rewritten
through pinreport's one writer (atomic_write.replace_file), so a concurrent reader sees
the old index or the new one; one it cannot parse is rebuilt, never trusted.
"""

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pinreport.base.atomic_write import replace_file
from pinreport.base.catalog import HELD_STAGES, RULE_KINDS
from pinreport.base.errors import BadInputError
from pinreport.base.probe_keys import split_metric
from pinreport.base.worker_pool import map_in_processes
from pinreport.readers.environment import driver_release
from pinreport.readers.load import ResultsFile
from pinreport.readers.store_key import StoreKey
from pinreport.store.files import (
    REAL,
    StoreEntry,
    check_stored_file,
    content_hash,
    finished,
    measurement_id,
    name_hash,
    read_stored_bytes,
    release_dirs,
    stored_files,
)

INDEX_SCHEMA = "pinreport.summary-index"
# Bumped whenever night_summary() keeps other fields: every row is then rebuilt.
INDEX_VERSION = 1
INDEX_DIR = "index"
# The oldest results version night_summary() reads as stored, without the harness's upgrade (an
# older file's upgrade costs the harness about 65 ms, 24 s for a year of nights): versions 3 and
# 4 only added members it does not read (docs/results-schema.md); version 2 added the run params
# it keeps with the plan. reports/tests/test_store_index.py checks the summaries equal on every committed file.
SUMMARY_AS_STORED_FROM = 2
_METRIC_FIELDS = ("unit", "median", "granule", "disturbed")


def index_path(root: str | Path, group: tuple[str, str, str, str], namespace: str = REAL) -> Path:
    platform, model, gpu, count = group
    return Path(root, INDEX_DIR, namespace, platform, model, gpu, f"{count}.json")


def index_rel(root: Path, path: Path) -> str:
    """A stored file's key in its group's index: its path below the store's root."""
    return Path(path).relative_to(root).as_posix()


def night_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """The part of a results document the history and cost charts read (html_report._groups,
    rule.held_costs): ok runs of the rule kinds, each with its plan and its held-cost byte
    metrics (unit, median, granule, disturbed), plus started_at, backend, measurement_id and
    the driver release. A document in the results format, so the charts read it unchanged."""
    runs = []
    for run in doc.get("runs", []):
        plan = run.get("plan") or {}
        if run.get("status") != "ok" or plan.get("kind") not in RULE_KINDS:
            continue
        metrics = {}
        for name, m in (run.get("metrics") or {}).items():
            parts = split_metric(name)
            if parts is None or parts[0] not in HELD_STAGES or not isinstance(m, dict) or m.get("unit") != "bytes":
                continue
            metrics[name] = {k: m[k] for k in _METRIC_FIELDS if k in m}
        if metrics:
            runs.append({"id": run.get("id"), "status": "ok", "plan": plan, "metrics": metrics})
    return {
        "started_at": doc.get("started_at", ""),
        "backend": doc.get("backend", "cuda"),
        "measurement_id": measurement_id(doc),
        "complete": doc.get("complete"),
        "environment": {"driver": {"release": driver_release(doc.get("environment") or {})}},
        "runs": runs,
    }


def _stamp(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _load(path: Path) -> dict[str, Any]:
    """The rows of an index file; {} when it is absent, unreadable, broken or of another version."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("schema") != INDEX_SCHEMA or doc.get("version") != INDEX_VERSION:
        return {}
    rows = doc.get("files")
    if not isinstance(rows, dict):
        return {}
    return {rel: row for rel, row in rows.items() if _usable(row)}


def _usable(row: Any) -> bool:
    if not isinstance(row, dict) or not isinstance(row.get("stamp"), list):
        return False
    if isinstance(row.get("problem"), str):
        return True
    return (
        row.get("problem") is None
        and isinstance(row.get("summary"), dict)
        and isinstance(row.get("release"), str)
        and isinstance(row.get("hash"), str)
        and isinstance(row.get("finished"), list)
    )


STALE_TEMPORARY_S = 3600


def _remove_stale_temporaries(path: Path) -> None:
    """Deletes the temporaries of index writers killed before their rename (older than an hour:
    a write takes well under a second)."""
    now = time.time()
    for tmp in path.parent.glob(f"{path.name}.tmp.*"):
        try:
            if now - tmp.stat().st_mtime > STALE_TEMPORARY_S:
                tmp.unlink()
        except OSError:
            pass


def _checked_in_full(row: dict[str, Any] | None, named: str | None) -> bool:
    """The row says the bytes named `named` passed every check (rows written before "checked"
    existed were all checked in full)."""
    return row is not None and row["problem"] is None and row.get("checked", "all") == "all" and row["hash"] == named


class GroupIndex:
    """The history index of one group: its rows, brought up to date as files are read, saved
    (atomically, only when a row changed) by save()."""

    def __init__(self, root: Path, group: tuple[str, str, str, str], rows: dict[str, Any] | None = None) -> None:
        """rows: the rows to start from instead of the index file's (a worker's copy)."""
        self.root = Path(root)
        self.group = group
        self.path = index_path(root, group)
        self._saved = _load(self.path) if rows is None else dict(rows)
        self.rows = dict(self._saved)

    def _rel(self, path: Path) -> str:
        return index_rel(self.root, path)

    def _check(
        self, path: Path, stamp: list[int], data: bytes | None, *, name_vouches: bool
    ) -> StoreEntry | BadInputError:
        """Reads and checks the file (store.check_stored_file) and writes its row. name_vouches:
        for the history's summary only, the store's contract spares the results checks of a file
        whose name vouches for its bytes, and an older version's upgrade from
        SUMMARY_AS_STORED_FROM on (the entry is then read for its row only); the row says so
        ("checked": "name"), and the file is checked in full ("all") before a verdict uses it
        (entry())."""
        rel = self._rel(path)
        as_stored_from = SUMMARY_AS_STORED_FROM if name_vouches else None
        try:
            if data is None:
                data = read_stored_bytes(path)
            entry = check_stored_file(
                self.root, path, REAL, data=data, name_vouches=name_vouches, as_stored_from=as_stored_from
            )
            summary = night_summary(entry.doc)
        except BadInputError as e:
            self.rows[rel] = {"stamp": stamp, "problem": e.detail}
            return e.detached()
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            if not name_vouches:
                raise
            # A file no writer checked, under its right name (put there by hand): every check,
            # which names what is wrong with it.
            return self._check(path, stamp, data, name_vouches=False)
        complete, runs = finished(entry.doc)
        named = name_hash(path)
        xxh3 = content_hash(data) == named
        self.rows[rel] = {
            "stamp": stamp,
            "problem": None,
            "hash": named,
            "form": "xxh3" if xxh3 else "fnv",
            "checked": "name" if name_vouches and xxh3 else "all",
            "release": entry.key.release,
            "finished": [complete, runs],
            "summary": summary,
        }
        return entry

    def _recheck(self, path: Path, rel: str, stamp: list[int], row: dict[str, Any] | None) -> None:
        """A file that is new, or whose stamp changed. A row of a file whose bytes still give the
        XXH3 hash in its name (and the row's) keeps its summary, which is a function of those
        bytes: a checkout, copy or restore of a store (new inodes and times) costs a read and a
        hash a night (about 3 ms) instead of a parse. Anything else is checked."""
        if row is not None and row["problem"] is None and row.get("form") == "xxh3" and row["hash"] == name_hash(path):
            try:
                data = read_stored_bytes(path)
            except BadInputError:
                data = None
            if data is not None and content_hash(data) == row["hash"]:
                self.rows[rel] = {**row, "stamp": stamp}
                return
            self._check(path, stamp, data, name_vouches=True)
            return
        self._check(path, stamp, None, name_vouches=True)

    def entry(self, path: Path) -> StoreEntry | BadInputError:
        """One stored file in full (for `compare`). Its hash is always checked against its bytes;
        the strict JSON and schema checks are skipped when the index says these bytes (same
        hash; same stamp, or an XXH3 name that still matches) passed every one of them. A file
        stored by a version-1 writer (FNV name: 0.3 s per MB in Python) is checked in full once
        and then trusted on its unchanged stamp."""
        try:
            stamp = _stamp(os.lstat(path))
            data = read_stored_bytes(path)
        except OSError as e:
            return BadInputError(str(path), f"cannot read: {e.strerror}")
        except BadInputError as e:
            return e.detached()
        rel = self._rel(path)
        row = self.rows.get(rel)
        named = name_hash(path)
        if row is not None and row["stamp"] == stamp and row["problem"] is not None:
            return BadInputError(str(path), row["problem"])
        if _checked_in_full(row, named):
            same_bytes = content_hash(data) == named
            if same_bytes or (row.get("form") == "fnv" and row["stamp"] == stamp):
                try:
                    got = check_stored_file(self.root, path, REAL, data=data, validated=True, verify_hash=False)
                except (BadInputError, ValueError):
                    pass  # not as indexed after all: checked in full below
                else:
                    if row["stamp"] != stamp:
                        self.rows[rel] = {**row, "stamp": stamp}
                    return got
        return self._check(path, stamp, data, name_vouches=False)

    def entries(
        self,
        paths: list[Path],
        keep: Callable[[StoreEntry], StoreEntry] | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> list[StoreEntry | BadInputError]:
        """entry() of each path, in order, each result passed through keep(). The files the index
        has not seen pass every check (the strict reader, the schema: about 70 ms a night) in
        worker processes (worker_pool), keep() applied there (what the caller keeps of a night is
        smaller to hand back), and the rows they wrote are taken in; those it vouches for (a
        plain parse, about 20 ms) are read here, where handing a night back would cost as much.
        meanwhile: the caller's own work, done while the workers check (worker_pool)."""
        out: list[StoreEntry | BadInputError | None] = [None] * len(paths)
        unseen = []
        for i, path in enumerate(paths):
            row = self.rows.get(self._rel(path))
            if _checked_in_full(row, name_hash(path)):
                got = self.entry(path)
                out[i] = keep(got) if keep is not None and not isinstance(got, BadInputError) else got
            else:
                unseen.append((i, (self.root, self.group, path, row, keep)))
        for (i, job), (row, got) in zip(
            unseen, map_in_processes(_entry_of, [j for _, j in unseen], meanwhile), strict=True
        ):
            self._take_row(self._rel(job[2]), row)
            out[i] = got
        return out  # type: ignore[return-value]

    def _take_row(self, rel: str, row: dict[str, Any] | None) -> None:
        if row is None:
            self.rows.pop(rel, None)
        else:
            self.rows[rel] = row

    def history(self) -> tuple[list[StoreEntry], list[BadInputError]]:
        """Every real night of the group, oldest first, one per measurement (the one that
        finished more), each entry's doc its night_summary(); and the problems of the group's
        files. New or changed files are checked (read in full); unchanged ones are not read."""
        present: list[str] = []
        stale = []  # new or changed files, checked over worker processes (worker_pool)
        for directory in release_dirs(self.root, self.group).values():
            for file in stored_files(directory):
                rel = self._rel(file)
                try:
                    stamp = _stamp(os.lstat(file))  # the entry itself: a link is never followed
                except OSError:
                    continue  # removed since the listing
                row = self.rows.get(rel)
                if row is None or row["stamp"] != stamp:
                    stale.append((self.root, self.group, file, rel, stamp, row))
                present.append(rel)
        for job, row in zip(stale, map_in_processes(_recheck_of, stale), strict=True):
            self.rows[job[3]] = row
        self.rows = {rel: self.rows[rel] for rel in present}  # rows of removed files go
        best: dict[str, tuple[tuple[Any, ...], StoreEntry]] = {}
        problems = []
        for rel, row in self.rows.items():
            full = str(self.root / rel)
            if row["problem"] is not None:
                problems.append(BadInputError(full, row["problem"]))
                continue
            summary = row["summary"]
            entry = StoreEntry(full, REAL, ResultsFile(full, summary), StoreKey(*self.group, row["release"]))
            rank = (tuple(row["finished"]), full)
            mid = summary["measurement_id"]
            if mid not in best or rank > best[mid][0]:
                best[mid] = (rank, entry)
        history = sorted((e for _, e in best.values()), key=lambda e: (e.started_at, e.path))
        return history, sorted(problems, key=lambda p: p.path)

    def save(self) -> None:
        """Writes the index when a row changed (atomic_write.replace_file); a store that cannot be
        written keeps its index in memory for this run only."""
        if self.rows == self._saved:
            return
        data = json.dumps({"schema": INDEX_SCHEMA, "version": INDEX_VERSION, "files": self.rows}, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _remove_stale_temporaries(self.path)
            replace_file(self.path, data.encode())
            self._saved = dict(self.rows)
        except OSError:
            pass


# What a worker process runs (worker_pool.map_in_processes pickles the function by name): one
# file against a copy of its row, handing back the row it wrote and what it read.


def _entry_of(job) -> tuple[dict[str, Any] | None, StoreEntry | BadInputError]:
    root, group, path, row, keep = job
    index = GroupIndex(root, group, rows={} if row is None else {index_rel(root, path): row})
    got = index.entry(path)
    if keep is not None and not isinstance(got, BadInputError):
        got = keep(got)
    return index.rows.get(index_rel(root, path)), got


def _recheck_of(job) -> dict[str, Any]:
    root, group, path, rel, stamp, row = job
    index = GroupIndex(root, group, rows={})
    index._recheck(path, rel, stamp, row)
    return index.rows[rel]
