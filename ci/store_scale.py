#!/usr/bin/env python3
"""Times `pinreport compare` and `pinreport html` on a baseline store of many nights.

The store is made of copies of one real results file (default results/h200-kinds-nightly/
results.json): one night a day, a new driver release every 30 nights. The copies are for timing
only and are filed so that they can never be taken for a measurement:

- every GPU is renamed "pinbench scale copy (not a measurement) <name>", so the copies sit under
  a GPU key no machine has (real/linux/linux/pinbench-scale-copy-not-a-measurement-nvidia-h200/...);
- the driver releases are "900.NN" and the hostname is "scale-copy";
- the store lies in a new temporary directory (never inside the checkout) and is deleted at the
  end unless --keep is given;
- each copy has its own identity: its own started_at, its own repeat nonces and, from results
  schema 3 on, its own measurement_id.

Each copy is the source as today's harness writes it (`pinbench results upgrade`: the current
results version, the only one pinreport reads; PINBENCH_EXE, else pinbench on PATH). The files
are written with the installed pinreport's own store functions (entry_path,
content_hash, store_marker, and compressed_bytes where the version has it: store version 3 keeps
files gzip-compressed, as `pinbench store add` writes them), so the script builds a valid store
for the pinreport version it runs with, and it runs that version's `pinreport` (sys.executable -m
pinreport; PYTHONPATH=<an older checkout>/reports measures that one). Peak RSS and wall time come
from /usr/bin/time -v. Each size is timed four times: compare and html each first without
pinreport's history index (deleted: the first run of all), then again (as the first run left
it); --repeat N does each N times and gives the fastest and the slowest (a shared machine is
noisy). The disk column is what the stored nights take (du of real/, the index apart), per night.

    PINBENCH_EXE=build/ci-nogpu/harness/pinbench .venv/bin/python ci/store_scale.py --nights 100 365 1095
"""

import argparse
import copy
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from pinreport.readers.environment import store_key
except ImportError:  # an older checkout (PYTHONPATH, module docstring): the environment was one module
    from pinreport.environment import store_key

try:
    from pinreport.store import files as pstore
except ImportError:  # an older checkout (PYTHONPATH, module docstring): the store was one module
    from pinreport import store as pstore

NIGHTS_PER_RELEASE = 30
FIRST_NIGHT = dt.datetime(2030, 1, 1, 2, 0, 0, tzinfo=dt.UTC)
LABEL = "pinbench scale copy (not a measurement) "


def _iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def release_of(night: int) -> str:
    return f"900.{night // NIGHTS_PER_RELEASE:02d}"


def night_copy(source: dict, night: int) -> dict:
    """The source document as night `night` (0-based): new time, release, identity, label."""
    doc = copy.deepcopy(source)
    start = FIRST_NIGHT + dt.timedelta(days=night)
    old_start = dt.datetime.strptime(source["started_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    doc["started_at"] = _iso(start)
    if isinstance(source.get("finished_at"), str):
        old_end = dt.datetime.strptime(source["finished_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
        doc["finished_at"] = _iso(start + (old_end - old_start))
    env = doc["environment"]
    env["driver"]["release"] = release_of(night)
    env["hostname"] = "scale-copy"
    for device in env.get("devices", []):
        if isinstance(device.get("name"), str):
            device["name"] = LABEL + device["name"]
    doc["command"] = ["ci/store_scale.py", "copy", str(night), "of", *doc.get("command", [])]
    for run in doc.get("runs", []):
        for repeat in run.get("repeats", []):
            repeat["nonce"] = hashlib.blake2s(f"{repeat['nonce']}/{night}".encode(), digest_size=16).hexdigest()
    if doc.get("schema_version", 0) >= 3:
        doc["measurement_id"] = hashlib.blake2s(f"scale-copy/{night}".encode(), digest_size=8).hexdigest()
    return doc


def add_nights(store: Path, source: dict, first: int, last: int) -> None:
    compress = getattr(pstore, "compressed_bytes", None)  # store version 3 on
    for night in range(first, last):
        doc = night_copy(source, night)
        data = (json.dumps(doc, indent=1) + "\n").encode()
        path = pstore.entry_path(store, store_key(doc["environment"]), doc["started_at"], pstore.content_hash(data))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(compress(data) if compress else data)


def disk_bytes(directory: Path) -> int:
    """Bytes on disk below a directory (allocated blocks, as du counts them)."""
    return sum(p.lstat().st_blocks * 512 for p in directory.rglob("*"))


def timed(cmd: list[str]) -> tuple[float, float, float, int]:
    """(wall s, CPU s (user + system, children included), peak RSS MB, exit code) of one command
    under /usr/bin/time -v. On a shared machine the CPU time is the steadier figure."""
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    user = re.search(r"User time \(seconds\): ([0-9.]+)", p.stderr)
    system = re.search(r"System time \(seconds\): ([0-9.]+)", p.stderr)
    if wall is None or rss is None or user is None or system is None:
        sys.exit(f"store_scale: no /usr/bin/time output for {cmd}:\n{p.stderr[-2000:]}")
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return seconds, float(user.group(1)) + float(system.group(1)), int(rss.group(1)) / 1024, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nights", type=int, nargs="+", default=[100, 365, 1095])
    ap.add_argument(
        "--source", default=str(Path(__file__).resolve().parent.parent / "results/h200-kinds-nightly/results.json")
    )
    ap.add_argument("--work", help="parent of the temporary store (default: the system temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the store and print its path")
    ap.add_argument("--repeat", type=int, default=1, help="time each command this many times (fastest-slowest)")
    args = ap.parse_args()

    exe = os.environ.get("PINBENCH_EXE") or shutil.which("pinbench") or sys.exit("store_scale: no pinbench")
    upgraded = subprocess.run([exe, "results", "upgrade", args.source], capture_output=True, check=True)
    source = json.loads(upgraded.stdout)
    work = Path(tempfile.mkdtemp(prefix="pinbench-scale-", dir=args.work))
    store = work / "store"
    store.mkdir()
    (store / pstore.STORE_FILE).write_text(json.dumps(pstore.store_marker(), indent=2) + "\n")
    pinreport = [sys.executable, "-m", "pinreport"]
    print(f"pinreport from {Path(pstore.__file__).parent}; store {store}", flush=True)
    print("| nights | compare, no index | compare again | html, no index | html again | disk per night |")
    print("| (wall (CPU) / peak RSS) | | | | | |")
    print("| --- | --- | --- | --- | --- | --- |")
    built = 0
    try:
        for n in sorted(args.nights):
            add_nights(store, source, built, n)
            built = n
            # A year of nights just written: their writeback would compete with the first timed
            # runs (a real store gains one night a day). sync() returns once they are on disk.
            if hasattr(os, "sync"):
                os.sync()
            current = work / "current.json"
            current.write_text(json.dumps(night_copy(source, n), indent=1) + "\n")
            compare = [*pinreport, "compare", "--store", str(store), "--current", str(current)]
            html = [*pinreport, "html", "--store", str(store), "--current", str(current), "-o", str(work / "r.html")]
            # "no index": the store as `pinbench store add` leaves it, before any pinreport run
            # (pinreport's history index, STORE/index/, is deleted first; a version without it has
            # nothing to delete). The OS page cache is warm: the files were just written.
            cells = []
            for i, cmd in enumerate((compare, compare, html, html)):
                runs = []
                for _ in range(args.repeat):
                    if i in (0, 2):
                        shutil.rmtree(store / "index", ignore_errors=True)
                    runs.append(timed(cmd))
                walls = sorted(r[0] for r in runs)
                cpus = sorted(r[1] for r in runs)
                rss = max(r[2] for r in runs)
                codes = sorted({r[3] for r in runs} - {0, 1})
                wall = f"{walls[0]:.1f}" + (f"-{walls[-1]:.1f}" if len(walls) > 1 else "")
                cpu = f"{cpus[0]:.1f}" + (f"-{cpus[-1]:.1f}" if len(cpus) > 1 else "")
                cells.append(f"{wall} s ({cpu} s CPU) / {rss:.0f} MB" + (f" (exit {codes})" if codes else ""))
            per_night = disk_bytes(store / "real") / n
            cells.append(f"{per_night / 1024:.0f} KB")
            print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
