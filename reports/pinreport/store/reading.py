"""What each command reads of the store: every file (`pinreport store`-style listings, the
newest releases), and what `compare` and `html` need and nothing else.

The path is an index: read_for_compare() reads only the directories a comparison needs (the
current release and the previous one of the current file's group), and the history index
(history_index.py) gives `html` its history without reading every night again. Reading never
stops at a bad file: it is named in `problems` and skipped.
"""

import json
import multiprocessing
import os
import shlex
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pinreport.base.errors import BadInputError, OlderResultsError
from pinreport.base.input_file import read_bounded
from pinreport.base.schema import (
    RESULTS_SCHEMA_VERSION,
    STORE_SCHEMA_NAME,
    STORE_SCHEMA_OLDEST_VERSION,
    STORE_SCHEMA_VERSION,
)
from pinreport.base.versions import is_release, previous_release, release_key
from pinreport.base.worker_pool import JOBS_VARIABLE, map_in_processes
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.results import ResultsFile
from pinreport.store.files import (
    BUDGET,
    REAL,
    REPLAY,
    STORE_FILE,
    StoredBudget,
    StoreEntry,
    budget_identity,
    check_stored_budget,
    check_stored_file,
    no_cyclic_gc,
    one_per_measurement,
    release_dirs,
    stored_files,
    without_repeat_data,
)
from pinreport.store.history_index import INDEX_VERSION, Derive, GroupIndex, GroupMemo, memo_key

_MARKER_LIMIT = 64 * 1024  # store.json is one small object


@dataclass
class StoreContents:
    root: str
    entries: list[StoreEntry] = field(default_factory=list)
    problems: list[BadInputError] = field(default_factory=list)
    # The nights `html` charts, oldest first: the entries, unless read_for_html() filled it from
    # the history index (then each entry's doc is a summary: history_index.night_summary()).
    history_entries: list[StoreEntry] | None = None
    # The previous release read_for_compare() chose, whose nights may all be refused (an older
    # results version); None: the comparison chooses it from the entries.
    previous_release: str | None = None

    @property
    def history(self) -> list[StoreEntry]:
        return self.entries if self.history_entries is None else self.history_entries


def store_root_problem(path: str) -> str | None:
    """Why `path` cannot be the store a command reads, or None: the one check of every command's
    --store, made before anything is analysed (exit 2, one line). An empty path is refused (it
    is not the current folder), as is one the system cannot use (longer than PATH_MAX, a loop
    of links), a missing path and one that is not a directory (a typo, not an empty history).
    A directory without store.json is named by the reading (_check_marker)."""
    if path == "":
        return "--store is empty (give the baseline store directory)"
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return f"{path}: --store does not exist (give the baseline store directory)"
    except (OSError, ValueError) as e:  # ENAMETOOLONG, ELOOP, EACCES; a NUL byte
        return f"{path}: cannot use as --store: {getattr(e, 'strerror', None) or e}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path}: --store is not a directory (give the baseline store directory)"
    return None


def older_nights_folded(root: str | Path, problems: list[BadInputError]) -> list[BadInputError]:
    """The problems, with the stored nights of an older results version folded into one, for the
    store: how many, and the command that rewrites them all in the current version (the harness
    upgrades; pinreport reads the current version only), where the first of them stood."""
    older = [p for p in problems if isinstance(p, OlderResultsError)]
    if not older:
        return problems
    versions = ", ".join(str(v) for v in sorted({p.version for p in older}))
    folded = BadInputError(
        str(root),
        f"{len(older)} stored night(s) of results schema version {versions}, older than version "
        f"{RESULTS_SCHEMA_VERSION}, which this pinreport reads: upgrade them with "
        f"`pinbench store upgrade --store {shlex.quote(str(root))}`",
    )
    at = problems.index(older[0])
    rest = [p for p in problems if not isinstance(p, OlderResultsError)]
    return [*rest[:at], folded, *rest[at:]]


def _check_marker(root: Path) -> BadInputError | None:
    marker = root / STORE_FILE
    try:
        doc = json.loads(read_bounded(marker, _MARKER_LIMIT).decode("utf-8"))
    except OSError as e:
        return BadInputError(str(marker), f"not a pinbench store (cannot read {STORE_FILE}: {e.strerror or e})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        return BadInputError(str(marker), f"invalid JSON: {e}")
    if not isinstance(doc, dict) or doc.get("schema") != STORE_SCHEMA_NAME:
        found = doc.get("schema") if isinstance(doc, dict) else None
        return BadInputError(
            str(marker),
            f"not a pinbench store (schema is {json.dumps(found)}, expected {json.dumps(STORE_SCHEMA_NAME)})",
        )
    version = doc.get("schema_version")
    if (
        not isinstance(version, int)
        or isinstance(version, bool)
        or not STORE_SCHEMA_OLDEST_VERSION <= version <= STORE_SCHEMA_VERSION
    ):
        return BadInputError(
            str(marker),
            f"store schema version {json.dumps(version)} is not supported (this build reads "
            f"versions {STORE_SCHEMA_OLDEST_VERSION} to {STORE_SCHEMA_VERSION})",
        )
    return None


def _open(root: str | Path) -> tuple[Path, StoreContents]:
    """The store's root and its empty contents, holding the marker's problem when store.json
    is missing or of another schema or version (then nothing else is read)."""
    root = Path(root)
    contents = StoreContents(root=str(root))
    problem = _check_marker(root)
    if problem is not None:
        contents.problems.append(problem)
    return root, contents


def _read_files(
    root: Path, paths: Iterable[Path], namespace: str, contents: StoreContents, verify_hashes: bool
) -> list[StoreEntry]:
    out = []
    for path in paths:
        try:
            out.append(check_stored_file(root, path, namespace, verify_hash=verify_hashes))
        except BadInputError as e:
            contents.problems.append(e.detached())  # not the traceback, nor the bytes it holds
    return out


def read_store(root: str | Path, namespaces: tuple[str, ...] = (REAL,), *, verify_hashes: bool = True) -> StoreContents:
    """Every usable results file of the given namespaces, oldest first; the rest in problems.

    A file is a problem (named, skipped) when it is not a valid results file, holds replayed
    data under real/ or measured data under replay/, lies at a path its key does not give, or
    its bytes do not match the hash in its name. A store whose store.json is missing or of
    another schema or version is not read at all (its layout is unknown). Two files of one
    measurement (one_per_measurement) count once."""
    root, contents = _open(root)
    if contents.problems:
        return contents
    entries = []
    for namespace in namespaces:
        entries += _read_files(root, stored_files(root / namespace, 5), namespace, contents, verify_hashes)
    contents.entries = one_per_measurement(entries)
    contents.problems = older_nights_folded(root, contents.problems)
    return contents


def store_groups(root: str | Path, namespace: str = REAL) -> list[tuple[str, str, str, str]]:
    """The groups (platform, model, gpu, count) stored under a namespace: a directory listing,
    no file is read."""
    base = Path(root, namespace)
    return sorted(tuple(p.relative_to(base).parts) for p in base.glob("*/*/*/*") if p.is_dir())


def _release_entries(
    root: Path, group: tuple[str, str, str, str], release: str, namespace: str, contents: StoreContents
) -> list[StoreEntry]:
    """The usable files of one release directory, one per measurement; its problems go to contents."""
    directory = release_dirs(root, group, namespace).get(release)
    if directory is None:
        return []
    return one_per_measurement(_read_files(root, stored_files(directory), namespace, contents, verify_hashes=True))


def read_release(
    root: str | Path, group: tuple[str, str, str, str], release: str, namespace: str = REAL
) -> StoreContents:
    """The usable files of one release of one group (what `pinreport trace` fits), oldest first,
    one per measurement, with the problems of those files; no other file is read."""
    root, contents = _open(root)
    if not contents.problems:
        contents.entries = _release_entries(root, group, release, namespace, contents)
    contents.problems = older_nights_folded(root, contents.problems)
    return contents


def read_newest_releases(root: str | Path, namespace: str = REAL, driver: str | None = None) -> StoreContents:
    """What `pinreport reserve` fits: for each group, the files of one release: `driver` where
    the group has it, else the newest numbered release that holds a usable file (an unnumbered
    one only after every numbered one). Other releases' files are not read, so a store of many
    nights costs one release's reading per group; their problems are `pinbench store list`'s."""
    root, contents = _open(root)
    if contents.problems:
        return contents
    for group in store_groups(root, namespace):
        releases = release_dirs(root, group, namespace)
        if driver is not None:
            order = [driver] if driver in releases else []
        else:
            numbered = sorted((r for r in releases if is_release(r)), key=release_key, reverse=True)
            order = numbered + sorted((r for r in releases if not is_release(r)), reverse=True)
        for release in order:
            found = _release_entries(root, group, release, namespace, contents)
            if found:
                contents.entries += found
                break
    contents.problems = older_nights_folded(root, contents.problems)
    return contents


def read_for_compare(
    root: str | Path, current: ResultsFile, index=None, meanwhile: Callable[[], None] | None = None
) -> StoreContents:
    contents = _read_for_compare(root, current, index, meanwhile)
    contents.problems = older_nights_folded(root, contents.problems)
    return contents


def _read_for_compare(
    root: str | Path, current: ResultsFile, index=None, meanwhile: Callable[[], None] | None = None
) -> StoreContents:
    """What `pinreport compare` needs of the store, and nothing else: the real files of the
    current file's group under its own release (history) and under the previous release, which
    is the highest older release directory holding a usable file. Files of other groups and
    releases are not read (their problems are `pinbench store list`'s and `html`'s to name).

    Every file read has its hash checked; the strict JSON and schema checks run once per file
    (history_index.GroupIndex remembers which bytes passed them), over worker processes, the
    current and the previous release's files in one batch; each is kept without its repeats'
    records (without_repeat_data); the index is saved. meanwhile: the caller's own work, done
    while the workers check (worker_pool). A release whose nights are of an older results version
    stays the previous release: they are refused with the command that upgrades them, never
    passed over for an older release."""
    root, contents = _open(root)
    if contents.problems:
        return contents
    key = current.environment.key
    index = index or GroupIndex(root, key.group)
    dirs = release_dirs(root, key.group)

    upgradable: set[str] = set()  # releases holding nights of an older results version

    def read(directories: list[Path]) -> list[StoreEntry]:
        found = []
        files = [f for d in directories for f in stored_files(d)]
        for file, got in zip(files, index.entries(files, keep=without_repeat_data, meanwhile=meanwhile), strict=True):
            if isinstance(got, BadInputError):
                contents.problems.append(got)
                if isinstance(got, OlderResultsError):
                    upgradable.add(file.parent.name)
            else:
                found.append(got)
        return found

    with no_cyclic_gc():
        release = current.environment.release
        older = set(dirs)
        prev = previous_release(release, older) if release and is_release(release) and older else None
        entries = read(([dirs[key.release]] if key.release in dirs else []) + ([dirs[prev]] if prev else []))
        # An older release directory without a usable file: the next older one.
        while prev is not None and prev not in upgradable and not any(e.key.release == prev for e in entries):
            older.discard(prev)
            prev = previous_release(release, older) if older else None
            if prev is not None:
                entries += read([dirs[prev]])
    index.save()
    contents.entries = one_per_measurement(entries)
    contents.previous_release = prev
    return contents


def read_for_html(root: str | Path, current: ResultsFile, meanwhile: Callable[[], None] | None = None) -> StoreContents:
    """read_for_compare(), plus the history of every night of the group from the history index
    (history_index.GroupIndex.history: each file checked once, again only when its size, mtime,
    ctime or inode changed); the index's problems are named beside the comparison's."""
    root = Path(root)
    index = GroupIndex(root, current.environment.key.group)
    contents = _read_for_compare(root, current, index, meanwhile)
    if contents.problems and contents.problems[0].path.endswith(STORE_FILE):
        return contents
    with no_cyclic_gc():
        history, problems = index.history()
    index.save()
    seen = {(p.path, p.detail) for p in contents.problems}
    contents.problems += [p for p in problems if (p.path, p.detail) not in seen]
    contents.problems = older_nights_folded(root, contents.problems)
    contents.history_entries = history
    return contents


@dataclass
class GroupHistory:
    """Every night and budget of one group in one namespace, from its history index."""

    group: tuple[str, str, str, str]
    namespace: str
    nights: list[StoreEntry]  # oldest first, each entry's doc its summary, its derived values kept
    budgets: list[StoredBudget]  # oldest first
    problems: list[BadInputError] = field(default_factory=list)


def read_group_histories(
    root: Path, group: tuple[str, str, str, str], derive: Derive, namespaces: tuple[str, ...]
) -> list[GroupHistory]:
    """One group's nights and budgets in each namespace, through its history index (a night is
    read once, when it is first seen, and `derive`'s values kept in its row)."""
    out = []
    for namespace in namespaces:
        index = GroupIndex(root, group, namespace=namespace, derive=derive)
        with no_cyclic_gc():
            nights, problems = index.history()
        index.save()
        out.append(GroupHistory(group, namespace, nights, index.budgets, problems))
    return out


def read_for_drivers(
    root: str | Path,
    derive: Derive,
    compute: Callable[[list[GroupHistory]], Any],  # module-level (or a partial of one): workers run it
    memo: Any,
    replay: bool = False,
    before_compute: Callable[[], None] | None = None,
) -> tuple[list[Any], list[BadInputError]]:
    """What `pinreport drivers` reads: per machine group, compute(its histories) (the group's real
    nights and budgets, and its replayed ones when asked: read_group_histories), a JSON value,
    kept in the group's memo (history_index.GroupMemo) under the key of the group's listing,
    `memo` (the caller's options and versions) and the index's and derive's versions. A group whose
    files, stamps and options are as the memo says is not read at all: neither its nights nor its
    index. Returns the values, group by group in the groups' order, and the store's own problem
    (a store.json that is missing or of another version: then nothing is read). before_compute:
    what the computing needs once (an import), done only when a group is computed."""
    root, contents = _open(root)
    if contents.problems:
        return [], contents.problems
    namespaces = (REAL, REPLAY) if replay else (REAL,)
    groups = sorted({g for ns in namespaces for g in store_groups(root, ns)})
    values: list[Any] = []
    missing = []  # (position, memo, key) of the groups computed again
    for group in groups:
        listing = [
            [ns, [(kind, rel, stamp) for kind, rel, _, stamp in GroupIndex(root, group, {}, ns).listing()]]
            for ns in namespaces
        ]
        key = memo_key([memo, derive.name, INDEX_VERSION, listing])
        kept = GroupMemo(root, "drivers-replay" if replay else "drivers", group)
        values.append(kept.get(key))
        if values[-1] is None:
            missing.append((len(values) - 1, kept, key, group))
    # The groups are independent: computed over worker processes (worker_pool), each reading its
    # own index (and the nights it has not seen) in one process.
    jobs = [(root, group, derive, namespaces, compute) for _, _, _, group in missing]
    if jobs and before_compute is not None:
        before_compute()  # (an import) once, here, before the workers start: they inherit it
    for (i, kept, key, _), value in zip(missing, map_in_processes(_group_value, jobs), strict=True):
        kept.put(key, value)
        values[i] = value
    return values, []


def _group_value(job) -> Any:
    """What a worker process runs for one group (read_for_drivers): its histories, then compute.
    A worker checks the group's new nights itself (no pool of its own inside a worker)."""
    root, group, derive, namespaces, compute = job
    if multiprocessing.parent_process() is not None:
        os.environ[JOBS_VARIABLE] = "1"
    return compute(read_group_histories(root, group, derive, namespaces))


def previous_budget(root: str | Path, new: BudgetDocument) -> tuple[StoredBudget | None, list[BadInputError]]:
    """What `pinreport budget-compare NEW --store DIR` judges NEW against: the newest real budget
    of the highest release older than NEW's that holds a usable one, in NEW's machine group (the
    store key of its environment), and the problems of the budget files read on the way. Only
    those release directories' budgets are read, each checked in full (check_stored_budget)."""
    root, contents = _open(root)
    if contents.problems:
        return None, contents.problems
    key = new.environment.key
    dirs = release_dirs(root, key.group)
    older = set(dirs)
    problems: list[BadInputError] = []
    while is_release(key.release) and (prev := previous_release(key.release, older)) is not None:
        older.discard(prev)
        found = []
        for path in stored_files(dirs[prev], kind=BUDGET):
            try:
                found.append(check_stored_budget(root, path, REAL))
            except BadInputError as e:
                problems.append(e)
        if found:
            newest = max(found, key=lambda b: (b.started_at, budget_identity(b.started_at), b.path))
            return newest, problems
    return None, problems
