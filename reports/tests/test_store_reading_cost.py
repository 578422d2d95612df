"""What keeps a year of stored nights cheap to read (docs/store.md, "What a stored file's name
vouches for"; results/store-scale/README.md has the measured figures): the writer's checks are not
run again on bytes whose name vouches for them, and `compare` keeps no repeat data of a baseline
night."""

import gc

import pytest
from builders import add_to_store, document, make_store, results_doc, run_doc
from pinreport.base.schema import schema_of
from pinreport.readers.results import ResultsFile, measurement_id
from pinreport.store.reading import read_for_compare, read_for_html, read_store


def _current(doc):
    """A current results file as the commands read it (the store readers take a ResultsFile)."""
    return ResultsFile("current.json", doc)


@pytest.fixture
def counted_validations(monkeypatch):
    """How many documents went through the JSON Schema check."""
    calls = []
    schema = schema_of("results")
    real = schema.passes

    def counting(doc):
        calls.append(doc.get("started_at"))
        return real(doc)

    monkeypatch.setattr(schema, "passes", counting)
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
    repeats = document(entry)["runs"][0]["repeats"]
    assert repeats and all(set(r) <= {"index", "status", "nonce"} for r in repeats)
    assert [r["nonce"] for r in repeats] == [r["nonce"] for r in stored["runs"][0]["repeats"]]
    assert measurement_id(document(entry)) == measurement_id(stored)
    assert document(entry)["runs"][0]["metrics"] == stored["runs"][0]["metrics"]
    assert document(entry)["environment"] == stored["environment"]
    # The full document is what the other readers get.
    assert document(read_store(root).entries[0])["runs"][0]["repeats"] == stored["runs"][0]["repeats"]


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
