"""The harness's upgrades of older results files, kept between runs (derived, safe to delete).

`pinbench results upgrade -` costs about 80 ms of the harness's CPU for a real nightly file of
results schema 2, and `pinreport compare` reads some 35 stored nights on every run, `html`
every night of a group once: the same bytes upgraded by the same harness give the same output,
so the output is kept, gzip-compressed, under the user's cache directory:

    ${PINBENCH_CACHE:-${XDG_CACHE_HOME:-~/.cache}/pinbench}/results-upgrade/<harness>/<input>.json.gz

<harness> is the XXH3-64 of the pinbench executable's bytes (another build, another directory:
an entry is never used by a harness that did not write it), <input> the XXH3-128 of the bytes
upgraded. Nothing in a store is written. An entry that cannot be read or decompressed is
treated as absent (and rewritten); a cache directory that cannot be written only costs the
upgrade again. Entries are written through a temporary file and os.replace, so a concurrent
reader sees a whole entry or none.
"""

import os
import zlib
from functools import cache
from pathlib import Path

import xxhash

from pinreport.base.atomic_write import write_file
from pinreport.base.errors import PinreportError
from pinreport.base.input_file import RESULTS_LIMIT, read_bounded

SUBDIR = "results-upgrade"
_LEVEL = 1  # about 120 KB an entry for a real nightly file, 4 ms (level 6: 80 KB, 8 to 15 ms)


def cache_root() -> Path:
    """PINBENCH_CACHE (what ci/cache_dirs.sh uses), else the user's cache directory's pinbench/."""
    given = os.environ.get("PINBENCH_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "pinbench")


@cache
def _harness_id(exe: str, size: int, mtime_ns: int) -> str:
    # Bounded like any input: PINBENCH_EXE=/dev/zero or a FIFO is refused, not read forever.
    return xxhash.xxh3_64_hexdigest(read_bounded(exe, RESULTS_LIMIT))


def harness_id(exe: str) -> str | None:
    """The executable's content hash (cached per path, size and mtime); None when it cannot be
    read (then nothing is kept: the harness is run each time, or named when it cannot be)."""
    try:
        st = os.stat(exe)
        return _harness_id(exe, st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def entry_path(exe: str, data: bytes) -> Path | None:
    harness = harness_id(exe)
    if harness is None:
        return None
    return cache_root() / SUBDIR / harness / f"{xxhash.xxh3_128_hexdigest(data)}.json.gz"


def lookup(path: Path | None) -> bytes | None:
    """The upgraded bytes kept at `path`, or None (absent, unreadable, damaged)."""
    if path is None:
        return None
    try:
        packed = read_bounded(path, RESULTS_LIMIT)  # a FIFO or device planted there is refused
        d = zlib.decompressobj(31)
        out = d.decompress(packed, RESULTS_LIMIT + 1)
    except (OSError, zlib.error):
        return None
    return out if d.eof and not d.unused_data and len(out) <= RESULTS_LIMIT else None


def keep(path: Path | None, upgraded: bytes) -> None:
    """Keeps the harness's output; a failure to write is not an error (module docstring)."""
    if path is None:
        return
    c = zlib.compressobj(_LEVEL, zlib.DEFLATED, 31)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, c.compress(upgraded) + c.flush())
    except (OSError, PinreportError):
        pass
