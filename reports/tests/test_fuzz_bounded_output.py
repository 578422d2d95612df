"""Property (Hypothesis) of issue 57's invariant 5, bounded memory per input byte: whatever
results document `summary`, `compare` or `html` reads, the bytes it writes and its peak memory
grow at most in proportion to the bytes it read. Each example runs pinreport twice in a child
process, on a document with one string empty and then 64 KiB to 1 MiB long, in a place the
outputs show (the driver release, the GPU's name, the host, a scenario's name, a failed run's
reason), and compares what each wrote and the child's own peak resident set (getrusage).

Where the schema bounds a string, a longer one is refused (exit 2, one line) and the property
holds trivially; where it does not, the property holds only if no output repeats the string
per row. Before (c67c4a8 and the schema without string bounds): a 128 KiB release made `html`
write 97 MB from a 0.9 MB file, a 1 MiB release made `summary` peak at 713 MB (issue 57).

Bounded for CI (a few examples, each a child process); PINREPORT_FUZZ=nightly runs more."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from builders import add_to_store, make_store, results_doc, run_doc  # noqa: E402
from conftest import REPO_ROOT, upgraded  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schema_pending import until_bounded  # noqa: E402

KiB, MiB = 1024, 1024**2
DOCUMENTED = {0, 1, 2, 3}

# What a command may write and hold for each byte more it reads, the same document with a string
# long against empty (measured: html writes 0.6 to 0.8 bytes per byte read, summary 0.01; the
# peak resident set grows by 1 to 3 bytes per byte read), with room for the measurement's noise.
OUTPUT_PER_BYTE, OUTPUT_FIXED = 16, 256 * KiB
MEMORY_PER_BYTE, MEMORY_FIXED = 32, 48 * MiB

# The lengths drawn: past the schema's usual bounds (64 and 1024 characters), as the issue's examples.
LENGTHS = [64 * KiB, 128 * KiB, 1 * MiB]
FIELDS = ["release", "gpu", "hostname", "scenario", "reason"]

_EXAMPLES = {"ci": 5, "nightly": 100}.get(os.environ.get("PINREPORT_FUZZ", "ci"), 6)

# The child: runs one command in-process and writes its own peak resident set (bytes) to argv[1].
_CHILD = """
import resource, sys
peak_file, sys.argv = sys.argv[1], ["pinreport", *sys.argv[2:]]
from pinreport.start import main
try:
    code = main()
except SystemExit as e:
    code = e.code
kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
open(peak_file, "w").write(str(kib * 1024))
sys.exit(code)
"""


def _current(field: str, length: int, runs: int) -> dict:
    text = "x" * length
    scenario = text if field == "scenario" else "quick-overhead"
    docs = [run_doc(scenario=scenario or "s", size=(i + 1) * MiB, nonce=f"c{i}") for i in range(runs - 1)]
    docs.append(run_doc(scenario="quick-overhead", size=runs * MiB, nonce="w", status="failed", reason=text or "r"))
    env = {"release": text or "580.65.06"} if field == "release" else {}
    env |= {"gpu": text or "NVIDIA H200"} if field == "gpu" else {}
    doc = results_doc(docs, started_at="2025-06-09T10:00:00Z", **env)
    if field == "hostname":
        doc["environment"]["os"]["hostname"] = text
    return doc


def _run(argv: list[str], peak_file: Path) -> tuple[int, str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(peak_file), *argv],
        capture_output=True,
        # One BLAS thread: a pool's buffers (tens of MB each) come and go with the machine's load.
        env={
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT / "reports"),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        },
        timeout=300,
    )
    return done.returncode, done.stderr.decode(errors="replace"), len(done.stdout)


def _example(command: str, current_doc: dict) -> tuple[int, int, int, int]:
    """Runs `command` on `current_doc` (a store of one night beside it); (exit code, bytes read,
    bytes written, peak resident set)."""
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        store = make_store(tmp / "store")
        add_to_store(store, results_doc([run_doc(nonce="a")], started_at="2025-06-01T10:00:00Z"))
        current = tmp / "cur.json"
        current.write_text(json.dumps(current_doc))
        page = tmp / "page.html"
        argv = {
            "summary": ["summary", str(current), "--store", str(store)],
            "compare": ["compare", "--store", str(store), "--current", str(current)],
            "html": ["html", "--store", str(store), "--current", str(current), "-o", str(page)],
        }[command]
        read = current.stat().st_size + sum(p.stat().st_size for p in store.rglob("*") if p.is_file())
        code, err, printed = _run(argv, tmp / "peak")
        assert code in DOCUMENTED, (code, err[-2000:])
        assert "Traceback" not in err, err[-2000:]
        written = printed + len(err) + (page.stat().st_size if page.exists() else 0)
        return code, read, written, int((tmp / "peak").read_text())


def _check(command: str, short: dict, long: dict) -> None:
    """What `command` writes and holds for `long` beyond `short` (the same document with a string
    empty) grows at most in proportion to the bytes more it reads."""
    _, read0, written0, peak0 = _example(command, short)
    code, read, written, peak = _example(command, long)
    more = read - read0
    assert written - written0 <= OUTPUT_PER_BYTE * more + OUTPUT_FIXED, (command, code, more, written - written0)
    for _ in range(2):  # over the bound: measured again, twice at most (a busy machine's peaks vary)
        if peak - peak0 <= MEMORY_PER_BYTE * more + MEMORY_FIXED:
            break
        peak = min(peak, _example(command, long)[3])
    assert peak - peak0 <= MEMORY_PER_BYTE * more + MEMORY_FIXED, (command, code, more, peak - peak0)


def _with_release(doc: dict, release: str) -> dict:
    out = json.loads(json.dumps(doc))
    out["environment"]["driver"]["release"] = release
    return out


# The schema as it stands decides whether a long release can reach the outputs at all.
_PENDING = until_bounded("results", _current("release", 1 * MiB, 2))
# The property: not strict, as the drawn examples may miss the fields the schema does not bound.
_LATER = [pytest.mark.xfail(strict=False, reason=m.kwargs["reason"]) for m in _PENDING]


@pytest.mark.parametrize(
    ("command", "length"),
    [
        pytest.param("html", 128 * KiB, marks=_PENDING, id="html-release-128KiB"),
        pytest.param("summary", 1 * MiB, marks=_PENDING, id="summary-release-1MiB"),
    ],
)
def test_the_issues_examples_are_bounded(command, length):
    """The committed H200 quick run (results/h200-quick, 0.8 MB) with its release that long:
    before, html wrote 97 MB and summary peaked at 713 MB."""
    doc = json.loads(upgraded(REPO_ROOT / "results/h200-quick/results.json").read_text())
    _check(command, _with_release(doc, "580.65.06"), _with_release(doc, "5" * length))


@pytest.mark.parametrize("_", [pytest.param(0, marks=_LATER, id="property")])
@settings(max_examples=_EXAMPLES, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    command=st.sampled_from(["summary", "compare", "html"]),
    field=st.sampled_from(FIELDS),
    length=st.sampled_from(LENGTHS),
    runs=st.integers(1, 12),
)
def test_output_and_peak_memory_are_proportional_to_the_input(_, command, field, length, runs):
    _check(command, _current(field, 0, runs), _current(field, length, runs))
