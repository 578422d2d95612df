"""The baseline store's files, read side (the harness writes them: harness/include/pinbench/store/store.hpp).

Layout (docs/store.md):
    STORE/store.json   {"schema": "pinbench.store", "schema_version": 3}
    STORE/<namespace>/<platform>/<driver_model>/<gpu>/<n>gpu/<release>/<YYYYMMDDTHHMMSSZ>-<hash12>.json.gz
with namespace "real" for measurements and "replay" for replayed files, which are never
baselines. Each file is a complete results document, gzip-compressed (store version 3; files
stored by versions 1 and 2 are plain `.json` and still read); the hash in its name is that of the
uncompressed bytes. entry_path() is the one function that builds these paths, and
check_stored_file() the one place a stored file is checked; an entry that is not a regular file
(a FIFO, a symbolic link, a device, a directory named like a stored file) is named and never
opened. What each command reads of them: reading.py.
"""

import contextlib
import gc
import json
import os
import re
import stat
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import xxhash

from pinreport.base.errors import BadInputError, UnreadableError
from pinreport.base.input_file import RESULTS_LIMIT, InputRefused, kind_of_mode, read_bounded
from pinreport.base.schema import STORE_SCHEMA_NAME, STORE_SCHEMA_VERSION
from pinreport.readers.results import ResultsFile, parse_results, results_from_bytes
from pinreport.readers.store_key import StoreKey
from pinreport.readers.strict_json import parse_json

REAL = "real"
REPLAY = "replay"
STORE_FILE = "store.json"
_MARKER_LIMIT = 64 * 1024  # store.json is one small object

_SAFE_COMPONENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


UNKNOWN_TIME = "unknown-started-at"
# A stored file's name: <time>-<hash>.json.gz (store version 3), or .json (versions 1 and 2).
COMPRESSED_SUFFIX = ".json.gz"
PLAIN_SUFFIX = ".json"
_FILE_NAME = re.compile(r"^(\d{8}T\d{6}Z|unknown-started-at)-([0-9a-f]{12})\.json(\.gz)?$")
# The most a stored file may decompress to (a results file of a year of nights is a few MB); a
# larger one is named as a problem instead of filling memory. The C++ reader has the same bound.
MAX_UNCOMPRESSED_BYTES = RESULTS_LIMIT  # a stored file is a results file (input_file.py)
_ISO_UTC = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$")


def compact_timestamp(started_at: object) -> str:
    """2025-06-01T10:00:00Z (also with fractional seconds) -> 20250601T100000Z;
    "unknown-started-at" when it is not such a time."""
    m = _ISO_UTC.match(started_at) if isinstance(started_at, str) else None
    return "{}{}{}T{}{}{}Z".format(*m.groups()) if m else UNKNOWN_TIME


def entry_path(
    root: str | Path, key: StoreKey, started_at: object, hash12: str, namespace: str = REAL, *, compressed: bool = True
) -> Path:
    """The path of one stored results file: compressed (store version 3, what `pinbench store add`
    writes), or plain as versions 1 and 2 stored it. Every store path is built here."""
    if namespace not in (REAL, REPLAY):
        raise ValueError(f"unknown store namespace {namespace!r}")
    if not re.fullmatch(r"[0-9a-f]{12}", hash12):
        raise ValueError(f"not a 12-digit hex hash: {hash12!r}")
    parts = [key.platform, key.driver_model, key.gpu, key.gpu_count, key.release]
    for p in parts:
        if not _SAFE_COMPONENT.match(p) or p in (".", ".."):
            raise ValueError(f"unsafe store path component {p!r}")
    suffix = COMPRESSED_SUFFIX if compressed else PLAIN_SUFFIX
    return Path(root, namespace, *parts, f"{compact_timestamp(started_at)}-{hash12}{suffix}")


def name_hash(path: Path) -> str | None:
    """The 12 hex digits in a stored file's name; None when the name is not a stored file's."""
    m = _FILE_NAME.match(path.name)
    return m.group(2) if m else None


def compressed_bytes(data: bytes) -> bytes:
    """A results file as store version 3 keeps it: gzip (deflate level 9, no name, time 0). The
    hash in its name is content_hash(data), of the uncompressed bytes."""
    return gzip_compress(data)


def gzip_compress(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def read_stored_bytes(path: Path) -> bytes:
    """The uncompressed bytes of one stored file. It is looked at (lstat) before it is opened: an
    entry that is not a regular file is a BadInputError and is never opened (a FIFO would block,
    a link could lead out of the store). A .json.gz file is decompressed, at most
    MAX_UNCOMPRESSED_BYTES."""
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            raise BadInputError(str(path), f"{kind_of_mode(mode)}, not a stored file (never opened)")
        data = read_bounded(path, RESULTS_LIMIT)  # the one bounded reader of pinreport's inputs
    except InputRefused as e:  # larger than its limit, or replaced by a FIFO meanwhile: its own fact
        raise BadInputError(str(path), f"cannot read: {e}") from None
    except OSError as e:  # a fact of this machine now (permissions, I/O), not of the file
        raise UnreadableError(str(path), f"cannot read: {e.strerror or e}") from None
    if not path.name.endswith(".gz"):
        return data
    d = zlib.decompressobj(31)
    try:
        out = d.decompress(data, MAX_UNCOMPRESSED_BYTES + 1)
    except zlib.error as e:
        raise BadInputError(str(path), f"not a valid gzip file ({e})") from None
    if len(out) > MAX_UNCOMPRESSED_BYTES:
        raise BadInputError(str(path), f"decompresses to more than {MAX_UNCOMPRESSED_BYTES} bytes")
    if not d.eof or d.unused_data:
        raise BadInputError(str(path), "not a valid gzip file (truncated, or data after its end)")
    return out


def content_hash(data: bytes) -> str:
    """The first 12 hex digits of the XXH3-64 hash of the bytes: the names of store version 2
    (store.md). xxhash is C: about 10 GB/s, 0.2 ms for a real 1.7 MB results file."""
    return xxhash.xxh3_64_hexdigest(data)[:12]


def legacy_content_hash(data: bytes) -> str:
    """The first 12 hex digits of the 64-bit FNV-1a hash: the names store version 1 gave. Pure
    Python (about 0.3 s per MB); only computed for a name that is not the XXH3 of its bytes."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"[:12]


def store_marker() -> dict[str, str | int]:
    return {"schema": STORE_SCHEMA_NAME, "schema_version": STORE_SCHEMA_VERSION}


@dataclass(frozen=True)
class StoreEntry:
    path: str
    namespace: str
    results: ResultsFile
    key: StoreKey

    @property
    def started_at(self) -> str:
        return self.results.started_at


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


def check_stored_file(
    root: Path,
    path: Path,
    namespace: str,
    *,
    verify_hash: bool = True,
    data: bytes | None = None,
    validated: bool = False,
    name_vouches: bool = False,
) -> StoreEntry:
    """Reads and checks one stored file (store.md, "Rules for readers"); BadInputError naming it
    when it is not a usable entry. The one place a stored file is checked.

    validated: the history index says these bytes passed every check before: they are parsed
    with the plain JSON reader, their schema name and version checked, not the rest again.
    name_vouches: the caller relies on the store's contract (store.md, "What a stored file's
    name vouches for") and reads a file whose bytes give the XXH3 hash in its name as validated
    (the history charts' summaries do; every file a verdict uses is checked in full once). A
    stored file of an older results version is an OlderResultsError (`pinbench store upgrade`)."""
    if data is None:
        data = read_stored_bytes(path)
    m = _FILE_NAME.match(path.name)
    named_xxh3 = m is not None and content_hash(data) == m.group(2)
    trusted = validated or (name_vouches and named_xxh3)
    # Every check, on the bytes read once (they are hashed too).
    results = _parse_vouched(data, path) if trusted else results_from_bytes(data, str(path))
    if results.environment.by_test_double:
        raise BadInputError(str(path), "results of the pinbench test-double driver: never a baseline")
    if results.replayed != (namespace == REPLAY):
        what = "replayed data under real/: never a baseline" if results.replayed else "measured data under replay/"
        raise BadInputError(str(path), what)
    key = results.environment.key
    why = _path_problem(root, path, namespace, key, results.started_at)
    if why is None and m and verify_hash and not (named_xxh3 or legacy_content_hash(data) == m.group(2)):
        why = "its bytes do not match the hash in its name (edited after it was stored?)"
    if why is not None:
        raise BadInputError(str(path), why)
    return StoreEntry(str(path), namespace, results, key)


def _parse_vouched(data: bytes, path: Path) -> ResultsFile:
    """Bytes checked before (check_stored_file): the plain JSON reader (about half the strict
    one's time), and the strict one only to word the problem when the plain one refuses them."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        doc = parse_json(data, str(path))  # raises with the strict reader's message
    return parse_results(doc, str(path), checked_by_writer=True)


def without_repeat_data(entry: StoreEntry) -> StoreEntry:
    """The entry as `compare` keeps a baseline night: without what each repeat recorded
    (ResultsFile.without_repeat_data)."""
    return StoreEntry(entry.path, entry.namespace, entry.results.without_repeat_data(), entry.key)


def one_per_measurement(entries: Iterable[StoreEntry]) -> list[StoreEntry]:
    """One entry per measurement_id: where a crash left a resumed file beside its partial (or a
    copy was put in by hand), the one that finished more; oldest first."""
    best: dict[str, StoreEntry] = {}
    for e in entries:
        mid = e.results.measurement_id
        if mid not in best or (e.results.finished, e.path) > (best[mid].results.finished, best[mid].path):
            best[mid] = e
    return sorted(best.values(), key=lambda e: (e.started_at, e.path))


@contextlib.contextmanager
def no_cyclic_gc():
    """Python's cycle collector paused while many stored files are parsed: a parsed document is
    a tree (no cycles to collect), and the collector's passes over a million new objects a
    file took a third of the parse time (22 ms a nightly file with it, 14 ms without)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def release_dirs(root: str | Path, group: tuple[str, str, str, str], namespace: str = REAL) -> dict[str, Path]:
    """The release directories stored for one group (platform, model, gpu, count), by release:
    a directory listing, no file is read."""
    base = Path(root, namespace, *group)
    try:
        return {d.name: d for d in base.iterdir() if d.is_dir()}
    except OSError:
        return {}


def stored_files(directory: Path, layout_levels: int = 0) -> list[Path]:
    """What below a directory is to be read as a stored file, sorted: the regular files named
    *.json or *.json.gz (writers' temporaries, *.tmp.*, are not), and every entry that is neither
    a regular file nor a directory of the layout (a FIFO, a socket, a device, a symbolic link,
    never followed, a directory named like a stored file or where a file belongs): reading those
    names them as problems (read_stored_bytes), so nothing in a store is skipped silently.
    layout_levels: how many levels of directories below `directory` are the layout's (0 for a
    release directory, 5 for a namespace). Nothing is opened here."""
    out: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return out
    for e in entries:
        try:
            mode = e.stat(follow_symlinks=False).st_mode
        except OSError:
            continue  # removed since the listing
        named = e.name.endswith((PLAIN_SUFFIX, COMPRESSED_SUFFIX))
        if stat.S_ISDIR(mode) and layout_levels > 0 and not named:
            out += stored_files(Path(e.path), layout_levels - 1)
        elif not stat.S_ISREG(mode) or (named and ".tmp." not in e.name):
            out.append(Path(e.path))
    return sorted(out)
