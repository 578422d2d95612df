"""The store keeps budgets (store version 4, docs/store.md "Budget documents"): pinreport's readers
of stored budget documents, the history index's budget rows and derived values, and
`pinreport budget-compare NEW --store DIR`, which finds OLD in the store instead of a file given
by hand (docs/budget.md, "Between releases")."""

import copy
import gzip
import json
import re
import subprocess
import sys

import pytest
from builders import GiB, add_budget_to_store, add_to_store, make_store, results_doc, run_doc, write_json
from conftest import REPO_ROOT
from pinreport.base.errors import BadInputError
from pinreport.base.exit_codes import EXIT_BAD_INPUT, EXIT_OK, EXIT_REGRESSION
from pinreport.readers.budget import load_budget
from pinreport.readers.results import parse_results
from pinreport.store.files import (
    BUDGET,
    BUDGET_SUFFIX,
    REAL,
    RESULTS,
    budget_identity,
    check_stored_budget,
    stored_files,
)
from pinreport.store.history_index import INDEX_DIR, Derive, GroupIndex
from pinreport.store.reading import previous_budget, read_for_compare

REAL_BUDGET = REPO_ROOT / "results/h100-budget/budget-as-limit.json"  # found the limit: 6.5 GiB
CHUNK = 256 * 1024**2


def _budget(release="580.159.04", started_at="2026-12-06T04:32:03Z", smaller_by=0, replayed=False) -> dict:
    doc = json.loads(REAL_BUDGET.read_text())
    doc["environment"]["driver"]["release"] = release
    doc["started_at"] = started_at
    for f in doc["families"]:
        if f["status"] == "ok":
            f["safe_budget"] -= smaller_by
    doc["safe_budget"]["bytes"] -= smaller_by
    if replayed:
        doc["environment"]["replayed"] = True
    return doc


def _night(release="580.159.04", started_at="2026-12-06T05:00:00Z") -> dict:
    """A night of the real budget's machine (the H100's environment record)."""
    doc = results_doc(
        [run_doc("q", "cudaMallocHost", GiB, costs={"cuda.free": [2 * 1024**2] * 7})], started_at=started_at
    )
    doc["environment"] = copy.deepcopy(json.loads(REAL_BUDGET.read_text())["environment"])
    doc["environment"]["driver"]["release"] = release
    return doc


def test_the_budget_suffix_is_the_writers():
    text = (REPO_ROOT / "harness/src/store/store.cpp").read_text()
    m = re.search(r'constexpr const char\* budget_suffix = "([^"]+)";', text)
    assert m and m.group(1) == BUDGET_SUFFIX


def test_budget_identity_is_its_start_and_kind():
    import xxhash

    assert budget_identity("2025-06-01T10:06:00Z") == "budget-" + xxhash.xxh3_64_hexdigest(
        b"budget\n2025-06-01T10:06:00Z"
    )
    assert budget_identity("2025-06-01T10:06:00Z") != budget_identity("2025-06-01T10:06:01Z")


def test_a_stored_budget_is_read_checked_and_kept_apart_from_the_nights(tmp_path):
    root = make_store(tmp_path / "s")
    night = add_to_store(root, _night())
    stored = add_budget_to_store(root, _budget())
    assert stored.parent == night.parent and stored.name.endswith(BUDGET_SUFFIX)
    # Each kind's listing holds its own files only: a results reader never opens a budget.
    assert stored_files(night.parent) == [night]
    assert stored_files(night.parent, kind=BUDGET) == [stored]
    got = check_stored_budget(root, stored, REAL)
    assert got.key == got.budget.environment.key  # one key function for either kind
    assert got.budget.safe_budget == 6979321856 and got.key.release == "580.159.04"
    # compare reads the release directory of the night: the budget beside it is no problem.
    contents = read_for_compare(root, parse_results(_night(started_at="2026-12-07T05:00:00Z"), "c.json"))
    assert contents.problems == [] and len(contents.entries) == 1


def test_a_stored_budget_edited_misplaced_or_replayed_under_real_is_named(tmp_path):
    root = make_store(tmp_path / "s")
    stored = add_budget_to_store(root, _budget())
    data = json.loads(gzip.decompress(stored.read_bytes()))
    data["elapsed_s"] = 1.0
    stored.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(BadInputError, match="do not match the hash in its name"):
        check_stored_budget(root, stored, REAL)
    replayed = add_budget_to_store(root, _budget(replayed=True, started_at="2026-12-07T00:00:00Z"), REAL)
    with pytest.raises(BadInputError, match="a replayed budget under real/: never a baseline"):
        check_stored_budget(root, replayed, REAL)
    other = add_budget_to_store(root, _budget(release="590.10", started_at="2026-12-08T00:00:00Z"))
    moved = other.parent.parent / "580.159.04" / other.name
    other.rename(moved)
    with pytest.raises(BadInputError, match="its environment gives the key"):
        check_stored_budget(root, moved, REAL)


def _count(entry):
    _count.calls += 1
    return {"runs": len(entry.results.runs)}


def test_the_index_keeps_budgets_and_derived_values_and_reads_a_night_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PINREPORT_JOBS", "1")  # counted in this process
    root = make_store(tmp_path / "s")
    add_to_store(root, _night())
    add_budget_to_store(root, _budget())
    add_budget_to_store(root, _budget(started_at="2026-12-06T06:00:00Z", smaller_by=CHUNK))
    group = ("linux", "linux", "nvidia-h100-80gb-hbm3", "1gpu")
    derive = Derive("count/1", _count)
    _count.calls = 0
    index = GroupIndex(root, group, derive=derive)
    nights, problems = index.history()
    index.save()
    assert problems == [] and len(nights) == 1 and _count.calls == 1
    assert nights[0].derived == {"count/1": {"runs": 1}}
    assert [b.budget.safe_budget for b in index.budgets] == [6979321856, 6979321856 - CHUNK]  # oldest first
    again = GroupIndex(root, group, derive=derive)
    nights, _ = again.history()
    assert _count.calls == 1 and nights[0].derived == {"count/1": {"runs": 1}}  # kept in the row
    assert len(again.budgets) == 2
    # A reader without the Derive (html) keeps the row's values; another Derive computes its own.
    GroupIndex(root, group).history()
    other = GroupIndex(root, group, derive=Derive("count/2", _count))
    nights, _ = other.history()
    assert _count.calls == 2 and "count/2" in nights[0].derived
    assert (root / INDEX_DIR / "real").is_dir()


def test_budget_compare_finds_the_previous_release_in_the_store(tmp_path):
    root = make_store(tmp_path / "s")
    add_budget_to_store(root, _budget(started_at="2026-12-05T00:00:00Z", smaller_by=-CHUNK))  # older, larger
    add_budget_to_store(root, _budget())  # the newest of 580.159.04: 6.5 GiB
    add_budget_to_store(root, _budget(release="570.10", started_at="2026-11-01T00:00:00Z"))
    new = write_json(
        tmp_path / "new.json", _budget(release="590.10", started_at="2026-12-09T00:00:00Z", smaller_by=2 * GiB)
    )
    old, problems = previous_budget(root, load_budget(new))
    assert problems == [] and old.key.release == "580.159.04" and old.budget.safe_budget == 6979321856
    cli = [sys.executable, "-m", "pinreport", "budget-compare", str(new), "--store", str(root)]
    p = subprocess.run(cli, capture_output=True, text=True)
    assert p.returncode == EXIT_REGRESSION, p.stdout + p.stderr
    assert "REGRESSION" in p.stdout
    same = write_json(tmp_path / "same.json", _budget(release="590.10", started_at="2026-12-09T00:00:00Z"))
    p = subprocess.run([*cli[:4], str(same), "--store", str(root)], capture_output=True, text=True)
    assert p.returncode == EXIT_OK and "SAME" in p.stdout, p.stdout + p.stderr
    first = write_json(tmp_path / "first.json", _budget(release="560.01", started_at="2026-10-01T00:00:00Z"))
    p = subprocess.run([*cli[:4], str(first), "--store", str(root)], capture_output=True, text=True)
    assert p.returncode == EXIT_OK and "no budget of an earlier release" in p.stdout
    p = subprocess.run([*cli[:4], str(new), str(same), "--store", str(root)], capture_output=True, text=True)
    assert p.returncode == EXIT_BAD_INPUT and "takes NEW with --store" in p.stderr


def test_results_listing_never_names_a_budget(tmp_path):
    root = make_store(tmp_path / "s")
    add_budget_to_store(root, _budget())
    release_dir = next((root / "real").glob("*/*/*/*/*"))
    assert stored_files(release_dir, kind=RESULTS) == []
    assert stored_files(root / "real", 5, kind=BUDGET) == stored_files(release_dir, kind=BUDGET)


def test_drivers_names_the_stores_older_nights_once_with_the_command_that_upgrades_them(tmp_path, monkeypatch, capsys):
    """A night an older pinbench stored (results version 4) is refused by the driver table as by
    every command: one line for the store with `pinbench store upgrade`, exit 2, the same when the
    group's rows come from its memo (the problem keeps its version there)."""
    from pinreport.cli import main

    monkeypatch.setenv("PINREPORT_JOBS", "1")
    root = make_store(tmp_path / "s")
    add_to_store(root, _night())
    older = results_doc([run_doc()], started_at="2026-12-05T05:00:00Z", schema_version=4)
    older["environment"] = _night()["environment"]
    add_to_store(root, older)
    add_budget_to_store(root, _budget())
    line = (
        f"error: {root}: 1 stored night(s) of results schema version 4, older than version 5, which this "
        f"pinreport reads: upgrade them with `pinbench store upgrade --store {root}`"
    )
    for _ in range(2):  # computed, then from the memo
        assert main(["drivers", "--store", str(root)]) == EXIT_BAD_INPUT
        captured = capsys.readouterr()
        assert captured.err.splitlines() == [line]
        assert "580.159.04: 1 night" in captured.out
    assert list((root / INDEX_DIR / "memo").rglob("*.json"))
