"""validate.py: the results schema and the rules beyond it, worded as the C++ reader."""

import pytest
from builders import results_doc, run_doc
from pinreport.base.errors import BadInputError
from pinreport.readers.validate import check_results, json_path, only_globs


def test_a_valid_document_passes():
    check_results(results_doc([run_doc()]), "r.json")


def test_a_schema_problem_names_its_json_path():
    doc = results_doc([run_doc()])
    doc["runs"][0]["status"] = 7
    with pytest.raises(BadInputError) as e:
        check_results(doc, "r.json")
    assert str(e.value).startswith("r.json: runs[0].status: ")


def test_a_rule_beyond_the_schema():
    doc = results_doc([run_doc(), run_doc()])
    with pytest.raises(BadInputError) as e:
        check_results(doc, "r.json")
    assert "duplicate run id" in str(e.value)


def test_json_path_and_only_globs():
    assert json_path(["runs", 0, "metrics", "cost.x"]) == 'runs[0].metrics["cost.x"]'
    assert json_path([]) == "(document)"
    assert only_globs(["pinbench", "run", "--only", "a/*", "b", "--only=c", "-o", "x"]) == ["a/*", "b", "c"]
