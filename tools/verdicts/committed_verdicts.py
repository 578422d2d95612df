"""The committed real results re-analysed: every verdict `pinreport compare` gives on a fixed set
of stores and current files made of results/h200-*, and what `pinreport aa` says of the nights.

It answers "does this change alter what pinreport decides on real data?":

  committed_verdicts.py check            the summary against committed_verdicts.json (CI: pytest)
  committed_verdicts.py write            rewrite committed_verdicts.json after a deliberate change
  committed_verdicts.py dump OUTDIR      every verdict (verdicts.tsv) and the commands' text and
                                         JUnit output, to `diff -r` between two trees

Run with reports/ on PYTHONPATH and PINBENCH_EXE set: `pinbench results upgrade` writes each
committed file in the current results version (the only one pinreport reads) under its own path
in a temporary folder, where the script then runs; `pinbench store add` makes the stores. See
README.md beside this file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pinreport import cli
from pinreport.analysis.compare import compare

try:
    from pinreport.readers.results import load_results
except ImportError:  # a tree before pinreport's readers/ (README.md: `dump` on an older tree)
    from pinreport.result.load import load_results
from pinreport.store.reading import read_for_compare

REPO_ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("committed_verdicts.json")

_KINDS = "results/h200-kinds-nightly/results.json"
_WATCH_ON = "results/h200-watch-cost/nightly-watch-on.json"
_WATCH_OFF = "results/h200-watch-cost/nightly-watch-off.json"
_FRESH = "results/h200-aa-fresh/results.json"
_FREE_VRAM = "results/h200-nightly-free-vram/results.json"
_SMOKE = "results/h200-smoke/results.json"
_QUICK = "results/h200-quick/results.json"
_QUIET = "results/h200-disturbance/quiet.json"

# A store is the files it holds; every file is a real H200 night (our Linux control).
STORES: dict[str, tuple[str, ...]] = {
    "nights3": (_KINDS, _WATCH_ON, _WATCH_OFF),
    "nights_all": (_KINDS, _WATCH_ON, _WATCH_OFF, _FRESH),
    "k1": (_KINDS,),
    "smoke": (_SMOKE,),
    "sq": (_SMOKE, _QUICK),
    "quiet": (_QUIET,),
    "kw": (_KINDS, _WATCH_ON),
}

# (store, current file): history and previous-release verdicts, a disturbed night, a pinnable run.
PAIRS: tuple[tuple[str, str], ...] = (
    ("nights3", _FRESH),
    ("nights_all", _FRESH),
    ("k1", _WATCH_ON),
    ("k1", _WATCH_OFF),
    ("kw", _WATCH_OFF),
    ("kw", _FRESH),
    ("kw", _FREE_VRAM),
    ("smoke", _QUICK),
    ("sq", "results/h200-nightly/nightly/results.json"),
    ("quiet", "results/h200-disturbance/steady.json"),
    ("quiet", "results/h200-disturbance/burst.json"),
    ("quiet", "results/h200-disturbance/pinhost.json"),
    ("nights_all", "results/h200-pinnable/pinnable.json"),
    ("sq", "replay:report-demo"),
)

# Currents made by the replay backend from a real file (labelled replayed, never stored): the
# docs' demo, whose injected costs must read as regressions.
REPLAYS: dict[str, tuple[str, str]] = {
    "replay:report-demo": (_QUICK, "scenarios/replay/report-demo.yaml"),
}

AA_SETS: dict[str, tuple[str, ...]] = {
    "aa-4nights": (_KINDS, _WATCH_ON, _WATCH_OFF, _FRESH),
    "aa-3nights": (_KINDS, _WATCH_ON, _WATCH_OFF),
    "aa-smoke-quick": (_SMOKE, _QUICK),
}


def pinbench() -> str:
    exe = os.environ.get("PINBENCH_EXE") or shutil.which("pinbench")
    if not exe:
        raise RuntimeError("the stores and the replayed current need pinbench: set PINBENCH_EXE or put it on PATH")
    return exe


def run_pinbench(args: list[str]) -> None:
    done = subprocess.run([pinbench(), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pinbench {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")


def upgraded_mirror(root: Path) -> Path:
    """Every committed results file the stores, pairs and A/A sets read, in the current results
    version: `pinbench results upgrade` of each into root/upgraded/<its path in the repository>.
    The script runs there, so every output names each file by its path in the repository."""
    mirror = root / "upgraded"
    files = {f for fs in (*STORES.values(), *AA_SETS.values()) for f in fs}
    files |= {c for _, c in PAIRS if c not in REPLAYS} | {source for source, _ in REPLAYS.values()}
    for f in sorted(files):
        (mirror / f).parent.mkdir(parents=True, exist_ok=True)
        run_pinbench(["results", "upgrade", str(REPO_ROOT / f), "-o", str(mirror / f)])
    return mirror


def make_stores(root: Path) -> dict[str, Path]:
    """Each store as a user makes it: `pinbench store add` of its files."""
    out = {}
    for name, files in STORES.items():
        out[name] = root / name
        run_pinbench(["store", "add", *files, "--store", str(out[name])])
    return out


@dataclass
class PairVerdicts:
    store: str
    current: str
    lines: list[str]  # run, metric, kind, verdict; tab-separated, in compare()'s order
    exit_code: int
    bad_input: int
    infrastructure: int

    def summary(self) -> dict:
        changed = [line for line in self.lines if line.rsplit("\t", 1)[1] in ("REGRESSION", "IMPROVEMENT")]
        return {
            "store": self.store,
            "current": self.current,
            "exit": self.exit_code,
            "bad_input": self.bad_input,
            "infrastructure": self.infrastructure,
            "verdicts": dict(sorted(Counter(line.rsplit("\t", 1)[1] for line in self.lines).items())),
            "changed": changed,
            "sha256": hashlib.sha256("\n".join(self.lines).encode()).hexdigest(),
        }


def replay(root: Path, name: str) -> Path:
    """The replayed current `name`, made once under root by `pinbench run --backend replay`."""
    out = root / "replayed" / (name.split(":", 1)[1] + ".json")
    if not out.exists():
        source, script = REPLAYS[name]
        out.parent.mkdir(parents=True, exist_ok=True)
        run_pinbench(
            ["run", "--backend", "replay", "--from", source, "--script", str(REPO_ROOT / script), "-o", str(out)]
        )
    return out


def current_path(root: Path, current: str) -> str:
    return str(replay(root, current)) if current in REPLAYS else current


def pair_verdicts(root: Path, stores: dict[str, Path], store: str, current: str) -> PairVerdicts:
    f = load_results(current_path(root, current))
    report = compare(f, read_for_compare(stores[store], f))
    lines = [f"{v.run_id}\t{v.metric}\t{v.kind}\t{v.verdict}" for v in report.verdicts]
    return PairVerdicts(store, current, lines, report.exit_code(), len(report.bad_input), len(report.infrastructure))


def run_cli(argv: list[str]) -> str:
    """One pinreport command in this process: its stdout, stderr and exit code as one text."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return out.getvalue() + err.getvalue() + f"exit {code}\n"


def aa_outputs() -> dict[str, str]:
    return {name: run_cli(["aa", *files]) for name, files in AA_SETS.items()}


def summary(root: Path) -> dict:
    os.chdir(upgraded_mirror(root))  # the reports name the results by their paths in the repository
    stores = make_stores(root)
    aa = aa_outputs()
    return {
        "about": "tools/verdicts/committed_verdicts.py: pinreport's verdicts on the committed H200 results",
        "pairs": [pair_verdicts(root, stores, s, c).summary() for s, c in PAIRS],
        "aa": {
            name: {"sha256": hashlib.sha256(text.encode()).hexdigest(), "last_line": text.splitlines()[-1]}
            for name, text in aa.items()
        },
    }


def differences(got: dict, want: dict) -> list[str]:
    """What moved, pair by pair, in words a failing test can print."""
    out = []
    want_pairs = {(p["store"], p["current"]): p for p in want.get("pairs", [])}
    for p in got["pairs"]:
        w = want_pairs.get((p["store"], p["current"]))
        name = f"{p['store']} <- {p['current']}"
        if w is None:
            out.append(f"{name}: not in the committed summary")
            continue
        for field in ("exit", "bad_input", "infrastructure", "verdicts", "changed", "sha256"):
            if p[field] != w[field]:
                out.append(f"{name}: {field} {w[field]!r} -> {p[field]!r}")
    for name, a in got["aa"].items():
        if a != want.get("aa", {}).get(name):
            out.append(f"{name}: {want.get('aa', {}).get(name)!r} -> {a!r}")
    return out


def dump(outdir: Path, root: Path) -> None:
    """Everything, for `diff -r` between two trees: verdicts.tsv and each command's output."""
    outdir.mkdir(parents=True, exist_ok=True)
    os.chdir(upgraded_mirror(root))  # the reports name the results by their paths in the repository
    stores = make_stores(root)
    with open(outdir / "verdicts.tsv", "w") as tsv:
        for i, (store, current) in enumerate(PAIRS, 1):
            p = pair_verdicts(root, stores, store, current)
            tsv.writelines(f"{store}\t{current}\t{line}\n" for line in p.lines)
            tsv.write(f"{store}\t{current}\texit\t{p.exit_code}\tbad={p.bad_input}\tinfra={p.infrastructure}\n")
            tag = f"{i:02d}-{store}-{current.replace('/', '_').replace(':', '_')}"
            args = ["compare", "--store", str(stores[store]), "--current", current_path(root, current)]
            # The store's temporary path is not part of what is judged.
            (outdir / f"{tag}.txt").write_text(run_cli(args).replace(str(root), "STORES"))
            junit = outdir / f"{tag}.junit.xml"
            run_cli([*args, "--junit", str(junit)])
            junit.write_text(junit.read_text().replace(str(root), "STORES"))
    for name, text in aa_outputs().items():
        (outdir / f"{name}.txt").write_text(text)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("check", "write", "dump") or (argv[0] == "dump") != (len(argv) == 2):
        print(__doc__, file=sys.stderr)
        return 2
    outdir = Path(argv[1]).resolve() if argv[0] == "dump" else None
    with tempfile.TemporaryDirectory(prefix="pinbench-verdicts-") as tmp:
        if outdir:
            dump(outdir, Path(tmp))
            return 0
        got = summary(Path(tmp))
    if argv[0] == "write":
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n")
        print(f"{GOLDEN.relative_to(REPO_ROOT)}: {len(got['pairs'])} pairs, {len(got['aa'])} A/A sets")
        return 0
    moved = differences(got, json.loads(GOLDEN.read_text()))
    for line in moved:
        print(line)
    print(f"{len(moved)} difference(s) from {GOLDEN.relative_to(REPO_ROOT)}")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
