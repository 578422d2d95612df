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

The group's budget documents (store version 4) have rows too ("kind": "budget"), each checked in
full once, its summary the document without its phases (BudgetDocument.summary). A reader that
needs more of each night than night_summary() keeps (the driver table: pipeline/drivers.py) hands
in a Derive: its values are computed from the night as it is read, once, and kept in the night's
row beside the summary ("derived", under the Derive's name and version); a row without them is
read again once. The replayed nights of a group have an index of their own (index/replay/...).
"""

import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import xxhash

from pinreport.base.atomic_write import replace_file
from pinreport.base.errors import BadInputError, OlderResultsError, UnreadableError
from pinreport.base.schema import RESULTS_SCHEMA_VERSION
from pinreport.base.worker_pool import map_in_processes
from pinreport.readers.budget import budget_from_document
from pinreport.readers.results import ResultsFile
from pinreport.readers.store_key import StoreKey
from pinreport.store.files import (
    BUDGET,
    COMPRESSED_SUFFIX,
    PLAIN_SUFFIX,
    REAL,
    RESULTS,
    StoredBudget,
    StoreEntry,
    budget_identity,
    check_stored_budget,
    check_stored_file,
    content_hash,
    is_budget_name,
    name_hash,
    read_stored_bytes,
    release_dirs,
)

INDEX_SCHEMA = "pinreport.summary-index"
# Bumped whenever night_summary() keeps other fields or a row means something else: every row is
# then rebuilt. Version 2: rows hold facts of the file only (an older results version by its
# number, no read that failed on this machine), and no night is summarised from an older version.
# Version 3: rows of budget documents, and the derived values of a Derive.
INDEX_VERSION = 3
INDEX_DIR = "index"


class Row(TypedDict):
    """One stored file's row: facts of the file only (docs/store.md, "The history index")."""

    stamp: list[int]  # size, mtime, ctime, inode when it was checked
    problem: str | None  # why it is not a usable night; None when it is
    older: NotRequired[int]  # an older results version's number (problem says so)
    hash: NotRequired[str]  # the 12 hex digits in its name
    form: NotRequired[str]  # "xxh3" or "fnv": the hash the name gives
    checked: NotRequired[str]  # "all": every check passed; "name": its name vouched for its bytes
    release: NotRequired[str]
    finished: NotRequired[list[Any]]  # [complete, runs]
    summary: NotRequired[dict[str, object]]  # ResultsFile.night_summary(), a results-format document
    kind: NotRequired[str]  # "budget" for a budget document's row (its summary: BudgetDocument.summary)
    derived: NotRequired[dict[str, Any]]  # a Derive's values, by its name


def index_path(root: str | Path, group: tuple[str, str, str, str], namespace: str = REAL) -> Path:
    platform, model, gpu, count = group
    return Path(root, INDEX_DIR, namespace, platform, model, gpu, f"{count}.json")


def index_rel(root: Path, path: Path) -> str:
    """A stored file's key in its group's index: its path below the store's root."""
    return Path(path).relative_to(root).as_posix()


@dataclass(frozen=True)
class Derive:
    """What a reader computes of each night as the index reads it (module docstring): `fn` of the
    night's checked entry, a JSON value kept in its row under `name` (name and version:
    "drivers/1"; another name is computed again). `fn` must be a module-level function (worker
    processes run it)."""

    name: str
    fn: Callable[[StoreEntry], Any]


def _stamp(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _load(path: Path) -> dict[str, Row]:
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


def _derived(row: Row | None, derive: Derive | None) -> bool:
    """The row holds the Derive's values (or needs none: a problem, a budget, no Derive)."""
    if derive is None or row is None or row["problem"] is not None or row.get("kind") == BUDGET:
        return True
    values = row.get("derived")
    return isinstance(values, dict) and derive.name in values


def _usable(row: Any) -> bool:
    if not isinstance(row, dict) or not isinstance(row.get("stamp"), list):
        return False
    if "older" in row:  # a fact of the file: its results version, refused while it is older
        older = row["older"]
        return isinstance(older, int) and older < RESULTS_SCHEMA_VERSION and isinstance(row.get("problem"), str)
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


def _problem_of(path: str, row: Row) -> BadInputError:
    """The problem a row records, as the error it was."""
    if "older" in row:
        return OlderResultsError(path, row["older"], RESULTS_SCHEMA_VERSION)
    return BadInputError(path, row["problem"])


def _checked_in_full(row: Row | None, named: str | None) -> bool:
    """The row says the bytes named `named` passed every check (rows written before "checked"
    existed were all checked in full)."""
    return row is not None and row["problem"] is None and row.get("checked", "all") == "all" and row["hash"] == named


class GroupIndex:
    """The history index of one group: its rows, brought up to date as files are read, saved
    (atomically, only when a row changed) by save()."""

    def __init__(
        self,
        root: Path,
        group: tuple[str, str, str, str],
        rows: dict[str, Row] | None = None,
        namespace: str = REAL,
        derive: Derive | None = None,
    ) -> None:
        """rows: the rows to start from instead of the index file's (a worker's copy). namespace:
        the real nights, or the replayed ones (their own index). derive: values to keep per night
        (module docstring)."""
        self.root = Path(root)
        self.group = group
        self.namespace = namespace
        self.derive = derive
        self.path = index_path(root, group, namespace)
        self._saved = _load(self.path) if rows is None else dict(rows)
        self.rows = dict(self._saved)
        self.budgets: list[StoredBudget] = []  # history() fills it: one per measurement, oldest first

    def _rel(self, path: Path) -> str:
        return index_rel(self.root, path)

    def _check(
        self, path: Path, stamp: list[int], data: bytes | None, *, name_vouches: bool
    ) -> StoreEntry | BadInputError:
        """Reads and checks the file (store.check_stored_file) and writes its row. name_vouches:
        for the history's summary only, the store's contract spares the results checks of a file
        whose name vouches for its bytes (the entry is then read for its row only); the row says so
        ("checked": "name"), and the file is checked in full ("all") before a verdict uses it
        (entry()). A row holds facts of the file only: a file that could not be read here (its
        permissions, an I/O error) gets none and is read again next time."""
        rel = self._rel(path)
        before = self.rows.get(rel)
        try:
            if data is None:
                data = read_stored_bytes(path)
            entry = check_stored_file(self.root, path, self.namespace, data=data, name_vouches=name_vouches)
            summary = entry.results.night_summary()
            derived = {self.derive.name: self.derive.fn(entry)} if self.derive is not None else None
        except UnreadableError as e:
            self.rows.pop(rel, None)
            return e
        except OlderResultsError as e:
            self.rows[rel] = {"stamp": stamp, "problem": e.detail, "older": e.version}
            return e
        except BadInputError as e:
            self.rows[rel] = {"stamp": stamp, "problem": e.detail}
            return e.detached()
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            if not name_vouches:
                raise
            # A file no writer checked, under its right name (put there by hand): every check,
            # which names what is wrong with it.
            return self._check(path, stamp, data, name_vouches=False)
        complete, runs = entry.results.finished
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
        kept = before.get("derived") if before is not None and before.get("hash") == named else None
        if derived is None and isinstance(kept, dict):
            derived = kept  # a function of the same bytes: kept across a check of another depth
        if derived is not None:
            self.rows[rel]["derived"] = derived
        return entry

    def _check_budget(self, path: Path, stamp: list[int]) -> UnreadableError | None:
        """A budget document's row: checked in full (a small document), its summary
        BudgetDocument.summary(). A document that could not be read here gets no row."""
        rel = self._rel(path)
        try:
            stored = check_stored_budget(self.root, path, self.namespace)
        except UnreadableError as e:
            self.rows.pop(rel, None)
            return e
        except BadInputError as e:
            self.rows[rel] = {"stamp": stamp, "problem": e.detail, "kind": BUDGET}
            return None
        self.rows[rel] = {
            "stamp": stamp,
            "problem": None,
            "kind": BUDGET,
            "hash": name_hash(path),
            "form": "xxh3",
            "checked": "all",
            "release": stored.key.release,
            "finished": [stored.budget.complete, 0],
            "summary": stored.budget.summary(),
        }
        return None

    def _recheck(self, path: Path, rel: str, stamp: list[int], row: Row | None) -> UnreadableError | None:
        """A file that is new, or whose stamp changed. A row of a file whose bytes still give the
        XXH3 hash in its name (and the row's) keeps its summary, which is a function of those
        bytes: a checkout, copy or restore of a store (new inodes and times) costs a read and a
        hash a night (about 3 ms) instead of a parse. Anything else is checked. A file that could
        not be read gets no row: its UnreadableError is returned."""
        if row is not None and row.get("kind") == BUDGET:
            return self._check_budget(path, stamp)
        if (
            row is not None
            and row["problem"] is None
            and row.get("form") == "xxh3"
            and row["hash"] == name_hash(path)
            and _derived(row, self.derive)
        ):
            try:
                data = read_stored_bytes(path)
            except BadInputError:
                data = None
            if data is not None and content_hash(data) == row["hash"]:
                self.rows[rel] = {**row, "stamp": stamp}
                return None
            got = self._check(path, stamp, data, name_vouches=True)
        else:
            got = self._check(path, stamp, None, name_vouches=True)
        return got if isinstance(got, UnreadableError) else None

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
            return UnreadableError(str(path), f"cannot read: {e.strerror}")
        except BadInputError as e:
            return e.detached()
        rel = self._rel(path)
        row = self.rows.get(rel)
        named = name_hash(path)
        if row is not None and row["stamp"] == stamp and row["problem"] is not None:
            return _problem_of(str(path), row)
        if _checked_in_full(row, named):
            same_bytes = content_hash(data) == named
            if same_bytes or (row.get("form") == "fnv" and row["stamp"] == stamp):
                try:
                    got = check_stored_file(
                        self.root, path, self.namespace, data=data, validated=True, verify_hash=False
                    )
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
                unseen.append((i, (self.root, self.group, path, row, keep, self.namespace)))
        for (i, job), (row, got) in zip(
            unseen, map_in_processes(_entry_of, [j for _, j in unseen], meanwhile), strict=True
        ):
            self._take_row(self._rel(job[2]), row)
            out[i] = got
        return out  # type: ignore[return-value]

    def _take_row(self, rel: str, row: Row | None) -> None:
        if row is None:
            self.rows.pop(rel, None)
        else:
            self.rows[rel] = row

    def listing(self) -> list[tuple[str, str, str, list[int]]]:
        """Every stored file of the group in this namespace, as (kind, rel, path, stamp), sorted by
        rel: what stored_files() lists of each release directory (a results or budget file by its
        name; an entry that is not a regular file counts with the results, whose reading names it),
        from one scandir and one lstat each, no file opened. GroupMemo's key; at a year of nights
        of 20 groups, 14,600 files, it must cost milliseconds, so no Path is built per file."""
        out = []
        prefix = "/".join((self.namespace, *self.group))
        for release, directory in release_dirs(self.root, self.group, self.namespace).items():
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for e in entries:
                try:
                    st = e.stat(follow_symlinks=False)  # the entry itself: a link is never followed
                except OSError:
                    continue  # removed since the listing
                name = e.name
                if stat.S_ISREG(st.st_mode):
                    if not name.endswith((PLAIN_SUFFIX, COMPRESSED_SUFFIX)) or ".tmp." in name:
                        continue
                    kind = BUDGET if is_budget_name(name) else RESULTS
                else:
                    kind = RESULTS
                out.append((kind, f"{prefix}/{release}/{name}", e.path, _stamp(st)))
        return sorted(out, key=lambda x: x[1])

    def history(self) -> tuple[list[StoreEntry], list[BadInputError]]:
        """Every night of the group in this namespace, oldest first, one per measurement (the one
        that finished more), each entry's results its night_summary(); and the problems of the
        group's files. New or changed files are checked (read in full); unchanged ones are not
        read. The group's budget documents go to self.budgets, as summaries (BudgetDocument.summary)."""
        present: list[str] = []
        stale = []  # new or changed files, checked over worker processes (worker_pool)
        for kind, rel, name, stamp in self.listing():
            row = self.rows.get(rel)
            if row is None or row["stamp"] != stamp or not _derived(row, self.derive):
                known = row if row is not None else ({"kind": BUDGET} if kind == BUDGET else None)
                stale.append((self.root, self.group, Path(name), rel, stamp, known, self.namespace, self.derive))
            present.append(rel)
        problems: list[BadInputError] = []
        for job, (row, unreadable) in zip(stale, map_in_processes(_recheck_of, stale), strict=True):
            if row is None:
                self.rows.pop(job[3], None)
                problems.append(unreadable)
            else:
                self.rows[job[3]] = row
        self.rows = {rel: self.rows[rel] for rel in present if rel in self.rows}  # rows of removed files go
        best: dict[str, tuple[tuple[Any, ...], StoreEntry]] = {}
        budgets: dict[str, tuple[tuple[Any, ...], StoredBudget]] = {}
        for rel, row in self.rows.items():
            full = str(self.root / rel)
            if row["problem"] is not None:
                problems.append(_problem_of(full, row))
                continue
            key = StoreKey(*self.group, row["release"])
            rank = (tuple(row["finished"]), full)
            if row.get("kind") == BUDGET:
                budget = StoredBudget(full, self.namespace, budget_from_document(row["summary"], full), key)
                mid = budget_identity(budget.started_at)
                if mid not in budgets or rank > budgets[mid][0]:
                    budgets[mid] = (rank, budget)
                continue
            night = ResultsFile.summary_of(full, row["summary"])
            entry = StoreEntry(full, self.namespace, night, key, row.get("derived"))
            mid = night.measurement_id
            if mid not in best or rank > best[mid][0]:
                best[mid] = (rank, entry)
        history = sorted((e for _, e in best.values()), key=lambda e: (e.started_at, e.path))
        self.budgets = sorted((b for _, b in budgets.values()), key=lambda b: (b.started_at, b.path))
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


MEMO_SCHEMA = "pinreport.group-memo"
MEMO_DIR = "memo"


def memo_key(parts: Any) -> str:
    """The key of a memo: the XXH3-128 of what the value is a function of (JSON-encodable)."""
    return xxhash.xxh3_128_hexdigest(json.dumps(parts, sort_keys=True, separators=(",", ":")).encode())


class GroupMemo:
    """What a reader computed of one group, kept beside the history index
    (STORE/index/memo/<name>/<platform>/<model>/<gpu>/<n>gpu.json) under a key that names what the
    value is a function of: the group's listing with every file's stamp (GroupIndex.listing), the
    reader's options and versions (memo_key). A run whose key is the kept one reads neither the
    nights nor the index; any change of a file, an option or a version computes it again. Derived
    like the index: deleting it costs one computation, one that cannot be parsed is not trusted."""

    def __init__(self, root: Path, name: str, group: tuple[str, str, str, str]) -> None:
        platform, model, gpu, count = group
        self.path = Path(root, INDEX_DIR, MEMO_DIR, name, platform, model, gpu, f"{count}.json")

    def get(self, key: str) -> Any:
        """The kept value when it was kept under `key`, else None."""
        try:
            doc = json.loads(self.path.read_bytes())
        except (OSError, ValueError, RecursionError):
            return None
        if isinstance(doc, dict) and doc.get("schema") == MEMO_SCHEMA and doc.get("key") == key:
            return doc.get("value")
        return None

    def put(self, key: str, value: Any) -> None:
        """Keeps `value` under `key` (atomic_write.replace_file); a store that cannot be written
        keeps nothing (the next run computes it again)."""
        data = json.dumps({"schema": MEMO_SCHEMA, "key": key, "value": value}, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _remove_stale_temporaries(self.path)
            replace_file(self.path, data.encode())
        except OSError:
            pass


# What a worker process runs (worker_pool.map_in_processes pickles the function by name): one
# file against a copy of its row, handing back the row it wrote and what it read.


def _entry_of(job) -> tuple[Row | None, StoreEntry | BadInputError]:
    root, group, path, row, keep, namespace = job
    index = GroupIndex(root, group, rows={} if row is None else {index_rel(root, path): row}, namespace=namespace)
    got = index.entry(path)
    if keep is not None and not isinstance(got, BadInputError):
        got = keep(got)
    return index.rows.get(index_rel(root, path)), got


def _recheck_of(job) -> tuple[Row | None, UnreadableError | None]:
    root, group, path, rel, stamp, row, namespace, derive = job
    index = GroupIndex(root, group, rows={}, namespace=namespace, derive=derive)
    unreadable = index._recheck(path, rel, stamp, row)
    return index.rows.get(rel), unreadable
