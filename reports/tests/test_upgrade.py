"""upgrade.py: an older results file as the current version, by the harness."""

import json

import pytest
from builders import results_doc, run_doc
from conftest import FIXTURES
from pinreport.base.errors import BadInputError
from pinreport.base.schema import RESULTS_SCHEMA_VERSION
from pinreport.readers.upgrade import as_current_version, older_version_document, supported_version

OLD = FIXTURES / "baseline-572.16.json"  # results schema 1


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PINBENCH_CACHE", str(tmp_path / "cache"))  # the upgrades kept: never the user's


def test_a_current_document_is_returned_as_it_is():
    doc = results_doc([run_doc()])
    assert as_current_version(doc, "r.json") is doc
    assert older_version_document(json.dumps(doc).encode()) is None


def test_supported_versions():
    assert supported_version({"schema_version": 1}) == 1
    assert supported_version({"schema_version": RESULTS_SCHEMA_VERSION}) == RESULTS_SCHEMA_VERSION
    assert supported_version({"schema_version": RESULTS_SCHEMA_VERSION + 1}) is None
    assert supported_version({"schema_version": True}) is None


def test_an_older_document_is_upgraded_by_the_harness():
    data = OLD.read_bytes()
    doc = older_version_document(data)
    assert doc is not None and doc["schema_version"] == 1
    upgraded = as_current_version(doc, "old.json", data)
    assert upgraded["schema_version"] == RESULTS_SCHEMA_VERSION


def test_without_a_harness_an_older_document_is_refused(monkeypatch):
    monkeypatch.delenv("PINBENCH_EXE", raising=False)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(BadInputError) as e:
        as_current_version({"schema_version": 1}, "old.json")
    assert "no pinbench was found" in str(e.value)
