import json

import pytest
from builders import results_doc, run_doc, write_json
from conftest import REPO_ROOT

from pinreport.errors import BadInputError
from pinreport.load import json_path, load_results

HARNESS_FIXTURES = REPO_ROOT / "harness/tests/fixtures/results"


def test_harness_valid_fixture_loads():
    r = load_results(HARNESS_FIXTURES / "valid_v1.json")
    assert r.doc["runs"][0]["id"] == "quick/cudaMallocHost/64MiB/x1/g1"
    assert not r.replayed


def test_builder_documents_are_schema_valid(tmp_path):
    doc = results_doc([run_doc(timings={"alloc": [1.0] * 7})])
    r = load_results(write_json(tmp_path / "r.json", doc))
    assert len(r.runs) == 1


def test_other_version_names_file_and_versions():
    with pytest.raises(BadInputError) as e:
        load_results(HARNESS_FIXTURES / "version2.json")
    assert str(e.value) == (
        f"{HARNESS_FIXTURES / 'version2.json'}: results schema version 2 is not supported (this build reads version 1)"
    )


def test_not_results():
    with pytest.raises(BadInputError) as e:
        load_results(HARNESS_FIXTURES / "not_results.json")
    assert "not_results.json: not a pinbench results file (schema is" in str(e.value)


def test_syntax_error_names_position(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{"schema": ')
    with pytest.raises(BadInputError) as e:
        load_results(p)
    assert str(e.value).startswith(f"{p}: invalid JSON at line 1, column 12")


def test_missing_file():
    with pytest.raises(BadInputError, match="nope.json: cannot read"):
        load_results("nope.json")


def test_schema_violation_names_json_path(tmp_path):
    doc = results_doc([run_doc()])
    del doc["runs"][0]["repeats"][0]["status"]
    with pytest.raises(BadInputError) as e:
        load_results(write_json(tmp_path / "r.json", doc))
    assert "r.json: runs[0].repeats[0]: 'status' is a required property" in str(e.value)


def test_replay_without_block_is_rejected(tmp_path):
    doc = results_doc([run_doc()])
    doc["backend"] = "replay"
    with pytest.raises(BadInputError, match="r.json: replay"):
        load_results(write_json(tmp_path / "r.json", doc))


def test_replayed_property(tmp_path):
    doc = results_doc([run_doc()], replay_of="results/h200-quick/results.json")
    assert load_results(write_json(tmp_path / "r.json", doc)).replayed


def test_json_path_quotes_dotted_names():
    assert json_path(["runs", 0, "metrics", "cost.after_alloc.cuda.free"]) == (
        'runs[0].metrics["cost.after_alloc.cuda.free"]'
    )
    assert json_path([]) == "(document)"


def test_json_roundtrip_of_fixture_dir():
    # Committed fixtures of this package stay loadable.
    from conftest import FIXTURES

    for p in sorted(FIXTURES.glob("*.json")):
        if p.name.startswith("bad-"):
            with pytest.raises(BadInputError):
                load_results(p)
        else:
            assert load_results(p).doc == json.loads(p.read_text())
