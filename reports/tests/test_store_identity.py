"""The store's identity and what reading it may cost (issue 57, invariants 5 and 6): --store is
checked once for every command (store.reading.store_root_problem: an empty path is no store,
a path the system cannot use is exit 2 in one line); a stored file is read by the same strict
JSON rule as pinbench's (a trailing NUL byte is refused); a measurement is identified by its
decoded measurement_id, however its file spells it; and a gzip bomb is named as too large and
its decompressed bytes are dropped, not kept with the problem that names it."""

import gzip
import json
import tracemalloc

import pytest
from builders import add_to_store, make_store, results_doc, run_doc
from conftest import REPO_ROOT
from pinreport.cli import main
from pinreport.pipeline import report as pipeline_report
from pinreport.store import files as store_files
from pinreport.store.reading import read_store

TRACE = REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json"
MiB = 2**20


def _inputs(tmp_path):
    current = tmp_path / "cur.json"
    current.write_text(json.dumps(results_doc([run_doc(nonce="b")], started_at="2025-05-02T10:00:00Z")))
    return {"current": str(current), "trace": str(TRACE), "out": str(tmp_path / "out.html")}


# Every command that takes --store, with the rest of its arguments.
STORE_COMMANDS = {
    "compare": ["compare", "--current", "{current}", "--store"],
    "html": ["html", "--current", "{current}", "-o", "{out}", "--store"],
    "summary": ["summary", "{current}", "--store"],
    "reserve": ["reserve", "--size", "1GiB", "--store"],
    "trace": ["trace", "{trace}", "--store"],
    "advise": ["advise", "{trace}", "--store"],
}


@pytest.mark.parametrize("command", STORE_COMMANDS)
def test_an_empty_store_is_exit_2_in_every_command(tmp_path, capsys, command):
    """Before: `--store ''` was the current folder in compare and reserve, and no store at all
    in summary, trace and advise."""
    argv = [a.format(**_inputs(tmp_path)) for a in STORE_COMMANDS[command]] + [""]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err == "error: --store is empty (give the baseline store directory)\n"
    assert out == ""


@pytest.mark.parametrize("command", STORE_COMMANDS)
def test_a_store_longer_than_path_max_is_exit_2_in_one_line(tmp_path, capsys, command):
    """Before: a traceback (exit 4) from Path.is_dir()."""
    long = "a/" * 3000
    argv = [a.format(**_inputs(tmp_path)) for a in STORE_COMMANDS[command]] + [long]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err == f"error: {long}: cannot use as --store: File name too long\n"
    assert out == ""


def _bomb(size: int) -> bytes:
    return gzip.compress(b" " * size, 9)


def _kept_from_store_files() -> int:
    """The bytes still allocated by store/files.py (where a stored file is read and
    decompressed), of those tracemalloc traced."""
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, store_files.__file__)])
    return sum(stat.size for stat in snapshot.statistics("filename"))


def _bombs(tmp_path, monkeypatch, count: int, limit: int):
    """A store of one good night and `count` gzip bombs beside it, each one byte over `limit`."""
    monkeypatch.setattr(store_files, "MAX_UNCOMPRESSED_BYTES", limit)
    monkeypatch.setenv("PINREPORT_JOBS", "1")  # in this process, where tracemalloc sees
    root = make_store(tmp_path / "store")
    good = add_to_store(root, results_doc([run_doc(nonce="a")], started_at="2025-05-01T10:00:00Z"))
    for i in range(count):
        good.with_name(f"20250502T1000{i:02d}Z-0123456789{i:02x}.json.gz").write_bytes(_bomb(limit + 1))
    return root


def test_gzip_bombs_are_named_and_their_bytes_dropped(tmp_path, monkeypatch):
    """Before: each bomb was named as too large, yet its decompressed bytes stayed alive with the
    problem's traceback (8.7 GB for 32 bombs of the real 256 MiB limit)."""
    limit, count = 4 * MiB, 12
    root = _bombs(tmp_path, monkeypatch, count, limit)
    tracemalloc.start(1)
    try:
        contents = read_store(root)
        kept = _kept_from_store_files()
    finally:
        tracemalloc.stop()
    assert len(contents.entries) == 1
    assert sorted(p.detail for p in contents.problems) == [f"decompresses to more than {limit} bytes"] * count
    assert kept < limit, f"{kept / MiB:.1f} MiB kept after reading {count} bombs of {limit / MiB:.0f} MiB"


@pytest.mark.parametrize("command", ["compare", "html"])
def test_gzip_bombs_in_the_releases_compared_are_dropped_too(tmp_path, monkeypatch, capsys, command):
    """The same through the history index (compare, html), up to the verdicts: no bytes kept."""
    limit, count = 4 * MiB, 8
    root = _bombs(tmp_path, monkeypatch, count, limit)
    inputs = _inputs(tmp_path)
    argv = [command, "--store", str(root), "--current", inputs["current"]]
    argv += ["-o", inputs["out"]] if command == "html" else []
    kept = []

    def measured(*args, **kwargs):
        kept.append(_kept_from_store_files())
        return real(*args, **kwargs)

    stage = "compare_report" if command == "compare" else "run_pipeline"  # the pipeline each runs
    real = getattr(pipeline_report, stage)
    monkeypatch.setattr(f"pinreport.cli.{stage}", measured)
    tracemalloc.start(1)
    try:
        code = main(argv)
    finally:
        tracemalloc.stop()
    out, err = capsys.readouterr()
    assert code == 2, err
    assert (out + err).count("decompresses to more than") >= count, err
    assert kept and kept[0] < limit, f"{kept[0] / MiB:.1f} MiB kept after reading {count} bombs"


def _stored(root, doc, text: bytes):
    """`doc` filed where the harness files it, with exactly these bytes."""
    path = add_to_store(root, doc)
    name = path.with_name(f"{path.name[:17]}{store_files.content_hash(text)}.json.gz")
    path.unlink()
    name.write_bytes(store_files.compressed_bytes(text))
    return name


def test_a_stored_file_ending_in_a_nul_byte_is_refused_as_invalid_json(tmp_path):
    """As pinbench's strict reader refuses it (harness/src/json/): the bytes after the document."""
    root = make_store(tmp_path / "store")
    doc = results_doc([run_doc(nonce="a")], started_at="2025-05-01T10:00:00Z")
    path = _stored(root, doc, json.dumps(doc).encode() + b"\0")
    contents = read_store(root)
    assert contents.entries == []
    assert [str(p) for p in contents.problems] == [
        f"{path}: invalid JSON at line 1, column {len(json.dumps(doc)) + 1}: Extra data"
    ]


def test_a_measurement_id_is_compared_decoded(tmp_path):
    """Two files of one measurement, one spelling its id with \\u escapes: one measurement."""
    root = make_store(tmp_path / "store")
    doc = results_doc([run_doc(nonce="a")], started_at="2025-05-01T10:00:00Z")
    doc["measurement_id"] = "night-1"
    plain = json.dumps(doc).encode()
    escaped = plain.replace(b'"night-1"', b'"\\u006eight\\u002d1"')
    assert escaped != plain and json.loads(escaped) == json.loads(plain)
    _stored(root, doc, plain)
    later = dict(doc, started_at="2025-05-01T11:00:00Z")
    _stored(root, later, json.dumps(later).encode().replace(b'"night-1"', b'"\\u006eight\\u002d1"'))
    assert len(read_store(root).entries) == 1
