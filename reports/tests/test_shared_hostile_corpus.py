"""One validation: the shared corpus of hostile results documents
(harness/tests/fixtures/hostile-results, written by its make_fixtures.py) that both results readers
must refuse, so that what `pinbench store add` stores is what pinreport reads. The harness's
reader is the truth (CTest HostileResultsCorpus.*: `store add` and `results upgrade` refuse each
file, exit 2, naming it and the JSON path in cases.tsv); here pinreport's reader must refuse each
as bad input naming the file.

Before: a `driver_model` string where an object is due (and the other environment cases) was
stored by `store add` and then refused by pinreport. The cases in SCHEMA_MUST_BOUND are refused by
the harness and still read by pinreport: each names the bound results.schema.json (or
pinreport's rules) must carry. They are strict xfails, so each one fails here the day pinreport
refuses it: then remove it from the list."""

import pytest
from conftest import REPO_ROOT
from pinreport.base.errors import BadInputError
from pinreport.readers.results import load_results

CORPUS = REPO_ROOT / "harness/tests/fixtures/hostile-results"
CASES = [line.split("\t") for line in (CORPUS / "cases.tsv").read_text().splitlines() if line]

# The harness's rules that pinreport does not hold yet (harness/src/probes/snapshot.cpp); the
# physical bounds of results_json.cpp and plan.cpp are in results.schema.json now.
SCHEMA_MUST_BOUND = {
    "steady_ns_decreasing.json": "snapshot.steady_ns: [begin, stable, end] in increasing order",
}


def _param(name: str, where: str):
    marks = []
    if name in SCHEMA_MUST_BOUND:
        marks.append(pytest.mark.xfail(strict=True, reason=f"the schema must carry {SCHEMA_MUST_BOUND[name]}"))
    return pytest.param(name, where, id=name, marks=marks)


def test_the_corpus_is_complete():
    """Every file of the corpus is a case, and the cases cover the environment record and the
    physical bounds."""
    files = sorted(p.name for p in CORPUS.glob("*.json"))
    assert files == sorted(name for name, _ in CASES)
    assert len(CASES) >= 20
    assert any(where.startswith("environment.devices[0].driver_model") for _, where in CASES)
    assert set(SCHEMA_MUST_BOUND) <= set(files)


@pytest.mark.parametrize(("name", "where"), [_param(n, w) for n, w in CASES])
def test_pinreport_refuses_what_the_harness_refuses(name, where):
    path = CORPUS / name
    with pytest.raises(BadInputError) as e:
        load_results(path)
    assert str(e.value).startswith(f"{path}: "), str(e.value)
    assert "\n" not in str(e.value)
