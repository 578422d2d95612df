"""What keeps a year of stored nights cheap to read (docs/store.md, "What a stored file's name
vouches for"; results/store-scale/README.md has the measured figures): the writer's checks are not run again on
bytes whose name vouches for them, `compare` keeps no repeat data of a baseline night, and the
harness's upgrades of older files are kept in a derived cache outside the store."""

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from builders import add_to_store, make_store, results_doc, run_doc, write_json
from conftest import REPO_ROOT
from pinreport.errors import BadInputError
from pinreport.result import load, upgrade, upgrade_cache, validate
from pinreport.result.load import ResultsFile
from pinreport.store.files import measurement_id
from pinreport.store.reading import read_for_compare, read_for_html, read_store


def _current(doc):
    """A current results file as the commands read it (the store readers take a ResultsFile)."""
    return ResultsFile("current.json", doc)


@pytest.fixture
def counted_validations(monkeypatch):
    """How many documents went through the JSON Schema check."""
    calls = []
    real = validate.fast_validator()

    def counting(doc):
        calls.append(doc.get("started_at"))
        return real(doc)

    monkeypatch.setattr(validate, "fast_validator", lambda: counting)
    return calls


def _against_a_rule(started_at: str, **kw) -> dict:
    """A results document that breaks a rule beyond the schema (a run id that is not its plan's)."""
    doc = results_doc([run_doc()], started_at=started_at, **kw)
    doc["runs"][0]["id"] = "not-the-plan-id"
    return doc


def test_the_history_relies_on_the_name_and_a_verdict_on_every_check(tmp_path, counted_validations):
    """The history charts' summaries of files whose name vouches for their bytes skip the
    results checks (the store's contract); every file a verdict reads is checked in full, once,
    and a hand-made file that breaks a rule is named there."""
    root = make_store(tmp_path / "store")
    add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z", release="570.10"))
    add_to_store(root, results_doc([run_doc()], started_at="2025-06-02T10:00:00Z", release="570.10"))
    baseline = add_to_store(root, _against_a_rule("2025-06-03T10:00:00Z", release="572.16"))
    good = add_to_store(root, results_doc([run_doc()], started_at="2025-06-03T11:00:00Z", release="572.16"))
    current = results_doc([run_doc()], started_at="2025-06-04T10:00:00Z", release="580.65.06")

    contents = read_for_html(root, _current(current))
    assert [p.path for p in contents.problems] == [str(baseline)]
    assert "differs from plan.id" in contents.problems[0].detail
    # The previous release's files (the verdicts') in full; the 570.10 nights: summaries only.
    assert sorted(counted_validations) == ["2025-06-03T10:00:00Z", "2025-06-03T11:00:00Z"]
    nights = ["2025-06-01T10:00:00Z", "2025-06-02T10:00:00Z", "2025-06-03T11:00:00Z"]
    assert [e.started_at for e in contents.history] == nights
    # Once checked in full, a file is not checked again (the index remembers its bytes passed).
    counted_validations.clear()
    assert [e.path for e in read_for_compare(root, _current(current)).entries] == [str(good)]
    assert counted_validations == []
    # read_store (pinbench store list's reading) checks everything, every time.
    counted_validations.clear()
    read_store(root)
    assert len(counted_validations) == 4


def test_a_vouched_file_that_is_not_json_is_still_named(tmp_path):
    root = make_store(tmp_path / "store")
    good = add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"))
    text = b'{"schema": "pinbench.results", "schema_version": 4,'
    from pinreport.store.files import compressed_bytes, content_hash

    broken = good.with_name(f"20250602T100000Z-{content_hash(text)}.json.gz")
    broken.write_bytes(compressed_bytes(text))
    current = results_doc([run_doc()], started_at="2025-06-03T10:00:00Z")
    contents = read_for_html(root, _current(current))
    assert [e.path for e in contents.history] == [str(good)]
    assert [p.path for p in contents.problems] == [str(broken)]
    assert contents.problems[0].detail.startswith("invalid JSON at line 1")


def test_compare_keeps_no_repeat_data_of_a_baseline_night(tmp_path):
    root = make_store(tmp_path / "store")
    stored = results_doc([run_doc(timings={"alloc": [1.0] * 7})], started_at="2025-06-01T10:00:00Z")
    add_to_store(root, stored)
    current = results_doc([run_doc()], started_at="2025-06-02T10:00:00Z")

    [entry] = read_for_compare(root, _current(current)).entries
    repeats = entry.doc["runs"][0]["repeats"]
    assert repeats and all(set(r) <= {"index", "status", "nonce"} for r in repeats)
    assert [r["nonce"] for r in repeats] == [r["nonce"] for r in stored["runs"][0]["repeats"]]
    assert measurement_id(entry.doc) == measurement_id(stored)
    assert entry.doc["runs"][0]["metrics"] == stored["runs"][0]["metrics"]
    assert entry.doc["environment"] == stored["environment"]
    # The full document is what the other readers get.
    assert read_store(root).entries[0].doc["runs"][0]["repeats"] == stored["runs"][0]["repeats"]


def test_reading_leaves_the_cycle_collector_as_it_was(tmp_path):
    root = make_store(tmp_path / "store")
    add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"))
    current = results_doc([run_doc()], started_at="2025-06-02T10:00:00Z")
    assert gc.isenabled()
    read_for_html(root, _current(current))
    assert gc.isenabled()
    gc.disable()
    try:
        read_for_html(root, _current(current))
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- the upgrade cache ---------------------------------------------------------------------------


def _fake_harness(tmp_path: Path, upgraded: dict) -> tuple[Path, Path]:
    """A stand-in for `pinbench results upgrade -`: writes `upgraded`, counts its runs."""
    out = write_json(tmp_path / "upgraded.json", upgraded)
    calls = tmp_path / "calls"
    exe = tmp_path / "fake-pinbench"
    exe.write_text(f"#!/bin/sh\necho \"$@\" >> '{calls}'\ncat >/dev/null\ncat '{out}'\n")
    exe.chmod(0o755)
    return exe, calls


def _older(doc: dict) -> bytes:
    old = json.loads(json.dumps(doc))
    old["schema_version"] = 3
    for run in old["runs"]:
        for m in run["metrics"].values():
            m.pop("samples", None)
    return json.dumps(old, indent=1).encode()


@pytest.mark.skipif(os.name == "nt", reason="the stand-in harness is a shell script")
def test_an_upgrade_is_kept_between_runs_and_keyed_by_the_harness(tmp_path, monkeypatch):
    upgraded = results_doc([run_doc()], started_at="2025-06-01T10:00:00Z")
    exe, calls = _fake_harness(tmp_path, upgraded)
    monkeypatch.setenv("PINBENCH_EXE", str(exe))
    monkeypatch.setenv("PINBENCH_CACHE", str(tmp_path / "cache"))
    data = _older(upgraded)

    assert upgrade.upgraded_before(data) is None
    assert load.results_from_bytes(data, "night.json").doc == upgraded
    assert calls.read_text().splitlines() == ["results upgrade -"]
    assert upgrade.upgraded_before(data) == upgraded  # a later read need not parse the older bytes
    [kept] = (tmp_path / "cache" / upgrade_cache.SUBDIR).rglob("*.json.gz")
    # Another process (the next night's pinreport) reads it without running the harness.
    code = (
        "import sys; from pinreport.result.load import results_from_bytes; "
        "results_from_bytes(sys.stdin.buffer.read(), 'n')"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports")}
    subprocess.run([sys.executable, "-c", code], input=data, env=env, check=True)
    assert calls.read_text().splitlines() == ["results upgrade -"]

    # Another harness build has its own entries: run again, once.
    exe.write_text(exe.read_text() + "# rebuilt\n")
    assert load.results_from_bytes(data, "night.json").doc == upgraded
    assert len(calls.read_text().splitlines()) == 2
    assert len(list((tmp_path / "cache" / upgrade_cache.SUBDIR).rglob("*.json.gz"))) == 2

    # A damaged entry is not used: the harness runs again and the entry is rewritten.
    kept.write_bytes(b"not gzip")
    exe.write_text(exe.read_text().replace("# rebuilt\n", ""))
    assert load.results_from_bytes(data, "night.json").doc == upgraded
    assert len(calls.read_text().splitlines()) == 3
    assert upgrade_cache.lookup(kept) is not None


@pytest.mark.skipif(os.name == "nt", reason="the stand-in harness is a shell script")
def test_a_refused_upgrade_is_not_kept(tmp_path, monkeypatch):
    exe = tmp_path / "fake-pinbench"
    exe.write_text("#!/bin/sh\ncat >/dev/null\necho '(stdin): runs[0]: broken' >&2\nexit 2\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PINBENCH_EXE", str(exe))
    monkeypatch.setenv("PINBENCH_CACHE", str(tmp_path / "cache"))
    data = _older(results_doc([run_doc()]))
    for _ in range(2):
        with pytest.raises(BadInputError, match="refused it: runs\\[0\\]: broken"):
            load.results_from_bytes(data, "night.json")
    assert not list((tmp_path / "cache").rglob("*.json.gz"))


def test_the_cache_lies_under_the_users_cache_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("PINBENCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert upgrade_cache.cache_root() == tmp_path / "pinbench"
    monkeypatch.setenv("PINBENCH_CACHE", str(tmp_path / "elsewhere"))
    assert upgrade_cache.cache_root() == tmp_path / "elsewhere"


def test_a_hand_made_history_night_under_its_right_name_is_named_not_a_crash(tmp_path):
    """The contract's gap (docs/store.md): a file no writer checked, under its right XXH3 name,
    whose shape breaks the summary: it is checked in full instead, and named."""
    root = make_store(tmp_path / "store")
    doc = results_doc([run_doc()], started_at="2025-06-01T10:00:00Z", release="570.10")
    doc["runs"] = {"not": "a list"}
    odd = add_to_store(root, doc)
    current = results_doc([run_doc()], started_at="2025-06-04T10:00:00Z", release="580.65.06")
    add_to_store(root, results_doc([run_doc()], started_at="2025-06-03T10:00:00Z", release="572.16"))
    contents = read_for_html(root, _current(current))
    assert [p.path for p in contents.problems] == [str(odd)]
    assert contents.problems[0].detail.startswith("runs:")
