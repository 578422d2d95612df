"""Strict JSON at the door (strict_json.parse_json): the shared fixture set the C++ reader also reads
(harness/tests/fixtures/json-validity, harness/tests/cpu/json_validity_test.cpp), and a store
holding such files is still analysed. The fixtures are of results version 1: the strict reader
judges the bytes before the version is read, so pinreport refuses each rejected one with the
same words as the harness, and names an accepted one as an older version."""

import pytest
from builders import add_to_store, make_store, results_doc, rewrite_stored, run_doc, stored_text, write_json
from conftest import REPO_ROOT
from pinreport.base.errors import BadInputError, OlderResultsError
from pinreport.cli import main
from pinreport.readers.results import load_results, results_from_bytes
from pinreport.readers.strict_json import parse_json

CASES_DIR = REPO_ROOT / "harness/tests/fixtures/json-validity"
CASES = [line.split("\t") for line in (CASES_DIR / "expected.tsv").read_text().splitlines() if line]
REJECTED = [c for c in CASES if c[1] != "accept"]


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_shared_fixture(name, expected):
    path = CASES_DIR / name
    if expected == "accept":
        with pytest.raises(OlderResultsError):  # strict JSON, then its version: 1
            load_results(path)
        return
    with pytest.raises(BadInputError) as e:
        load_results(path)
    assert str(e.value).startswith(f"{path}: invalid JSON")
    assert expected in str(e.value)


@pytest.mark.parametrize(("name", "expected"), REJECTED, ids=[c[0] for c in REJECTED])
def test_the_current_version_is_refused_by_pinreports_own_reader(monkeypatch, name, expected):
    data = (CASES_DIR / name).read_bytes()
    assert data.count(b'"schema_version": 1') == 1
    current = data.replace(b'"schema_version": 1', b'"schema_version": 5')
    with pytest.raises(BadInputError) as e:
        results_from_bytes(current, "night.json")
    assert str(e.value).startswith("night.json: invalid JSON")
    assert expected in str(e.value)


def test_fixture_set_covers_every_kind_of_refusal():
    phrases = {expected for _, expected in CASES}
    for phrase in (
        "nested deeper",
        "NaN",
        "Infinity",
        "number out of range",
        "byte order mark",
        "UTF-8",
        "surrogate",
        "duplicate key",
        "accept",
    ):
        assert any(phrase in p for p in phrases), phrase


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (b'{"a": 1, "b": {"c": 2, "c": 3}}', 'duplicate key "c"'),
        (b"[" * 100000 + b"]" * 100000, "nested deeper than 64 levels"),
        (b"[1" + b"0" * 5000 + b"]", "number out of range: 1000000000000000000000000000000000000..."),
    ],
)
def test_refusals_name_the_file(text, fragment):
    with pytest.raises(BadInputError) as e:
        parse_json(text, "night.json")
    assert str(e.value).startswith("night.json: invalid JSON: ")
    assert fragment in str(e.value)


def test_a_bad_stored_file_is_named_and_the_rest_of_the_store_analysed(tmp_path, capsys):
    """Before: a stored file with a median of 10^400 (or 1200 nested arrays) gave a traceback and
    exit 1, the REGRESSION code, with nothing analysed."""
    root = make_store(tmp_path / "store")
    good = results_doc([run_doc(costs={"cuda.free": [2 * 1024**2] * 7})], started_at="2025-06-01T10:00:00Z")
    add_to_store(root, good)
    for i, poison in enumerate(("1" + "0" * 400, "[" * 1200 + "]" * 1200, "NaN")):
        doc = results_doc([run_doc()], started_at=f"2025-06-0{i + 2}T10:00:00Z")
        path = add_to_store(root, doc)
        text = stored_text(path).replace('"median": 2097152.0', f'"median": {poison}', 1)
        assert text != stored_text(path)
        rewrite_stored(path, text)
    current = write_json(tmp_path / "c.json", results_doc([run_doc()], started_at="2025-06-09T10:00:00Z"))
    code = main(["compare", "--store", str(root), "--current", str(current)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert out.count("invalid JSON") == 3
    assert "number out of range" in out and "nested deeper than 64 levels" in out and "NaN is not a JSON number" in out
    assert "history of 580.65.06: 1 stored file(s)" in out  # the good night is still the baseline


def test_an_internal_error_exits_4_never_1(tmp_path, capsys, monkeypatch):
    import pinreport.cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(pinreport.cli, "compare_report", broken)
    root = make_store(tmp_path / "store")
    current = write_json(tmp_path / "c.json", results_doc([run_doc()]))
    code = main(["compare", "--store", str(root), "--current", str(current)])
    err = capsys.readouterr().err
    assert code == 4
    assert "pinreport: internal error (exit 4, no verdict given): ZeroDivisionError: a bug" in err
