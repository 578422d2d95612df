"""The rules of a valid results file beyond its fields (docs/results-schema.md, "Rules beyond the
schema"): the shared fixture set pinbench is tested on too (harness/tests/fixtures/results-validity,
CTest ResultsValidity.*). pinreport must refuse each rejected file with exit 2 and "FILE: <expected>",
as a current file, as a stored night and as an A/A night.

Before: a file with a duplicate run id (two different copies: the report mixed them) and a
complete file with no runs were read and compared with exit 0."""

import json
import shutil

import pytest
from builders import document, make_store, rewrite_stored
from conftest import REPO_ROOT
from pinreport.base.errors import BadInputError
from pinreport.cli import main
from pinreport.readers.environment import store_key
from pinreport.readers.results import load_results
from pinreport.store.files import REAL, content_hash, entry_path

CASES_DIR = REPO_ROOT / "harness/tests/fixtures/results-validity"
CASES = [line.split("\t") for line in (CASES_DIR / "expected.tsv").read_text().splitlines() if line]
REJECTED = [c for c in CASES if c[1] != "accept"]


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_shared_fixture(name, expected):
    path = CASES_DIR / name
    if expected == "accept":
        assert document(load_results(path))["schema"] == "pinbench.results"
        return
    with pytest.raises(BadInputError) as e:
        load_results(path)
    assert str(e.value).startswith(f"{path}: {expected}")


@pytest.mark.parametrize(("name", "expected"), REJECTED, ids=[c[0] for c in REJECTED])
def test_compare_refuses_the_current_file(tmp_path, capsys, name, expected):
    store = make_store(tmp_path / "store")
    code = main(["compare", "--store", str(store), "--current", str(CASES_DIR / name)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: {CASES_DIR / name}: {expected}"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize(("name", "expected"), REJECTED, ids=[c[0] for c in REJECTED])
def test_a_stored_copy_is_named_and_never_a_baseline(tmp_path, capsys, name, expected):
    """A bad file put into a store by hand is a problem of the store, named; never a baseline."""
    store = make_store(tmp_path / "store")
    data = (CASES_DIR / name).read_bytes()
    doc = json.loads(data)
    doc_key = store_key(doc["environment"])
    stored = entry_path(store, doc_key, "2025-05-01T10:00:00Z", content_hash(data), REAL)
    stored.parent.mkdir(parents=True)
    rewrite_stored(stored, data.decode())  # compressed, as the store keeps it
    current = tmp_path / "current.json"
    shutil.copy(CASES_DIR / "accept_base.json", current)
    code = main(["compare", "--store", str(store), "--current", str(current)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert f"{stored}: {expected}" in out + err


def test_the_complete_file_is_compared(tmp_path, capsys):
    store = make_store(tmp_path / "store")
    code = main(["compare", "--store", str(store), "--current", str(CASES_DIR / "accept_base.json")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
