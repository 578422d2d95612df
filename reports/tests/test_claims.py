"""The claim objects (claims/): the register's order, applies() before judge(), and each file's
evidence gathered once."""

import pytest
from builders import kinds_doc, results_doc, run_doc
from pinreport.analysis import pinnable_fit
from pinreport.analysis.rule import Band, rule_results
from pinreport.claims.claim import NOT_TESTED, Claim
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import BRIEF, FURTHER, brief_rows, further_rows
from pinreport.readers.bench_rows import BenchRows
from pinreport.readers.environment import WSL2_MODEL
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Run
from test_pinnable import wddm_doc


def _rule(doc):
    return tuple(x for run in doc["runs"] for x in rule_results(Run.from_json(run), Band()))


def _data(doc):
    return ClaimData(ResultsFile("results.json", doc), _rule(doc), BenchRows())


def test_the_register_is_the_briefs_order():
    assert [c.n for c in BRIEF] == [str(i) for i in range(1, 15)]
    assert [c.n for c in FURTHER] == ["beyond the brief: largest pinnable size"]
    assert len({c.title for c in BRIEF + FURTHER}) == 15


def test_a_claim_that_does_not_apply_is_never_judged():
    class Never(Claim):
        n, title = "x", "never judged here"

        def applies(self, seen):
            return "needs a GPU this data lacks"

        def judge(self, seen):
            raise AssertionError("judged although it does not apply")

    row = Never().row(_data(results_doc([run_doc()])))
    assert (row.verdict, row.evidence, row.beside) == (NOT_TESTED, "needs a GPU this data lacks", "")


def test_windows_claims_name_the_numbers_on_linux():
    rows = {r.n: r for r in brief_rows(_data(kinds_doc()))}
    assert rows["12"].verdict == NOT_TESTED
    assert rows["12"].evidence.startswith("a WDDM claim; this data is linux: device cost on cuda.free: P=")
    assert rows["10"].evidence.startswith("a Windows claim; this data is linux; the rule's verdicts on it: ")


def test_the_pinnable_claim_collects_the_file_once(monkeypatch):
    calls = []
    collect_runs = pinnable_fit.collect_runs
    monkeypatch.setattr(pinnable_fit, "collect_runs", lambda runs: calls.append(1) or collect_runs(runs))
    (row,) = further_rows(_data(wddm_doc()))
    assert row.verdict == "CONFIRMED" and row.beside.startswith("Windows cap (reported, not judged)")
    assert len(calls) == 1


@pytest.mark.parametrize("doc", [results_doc([run_doc()]), kinds_doc()])
def test_no_pinnable_point_says_why_once(doc, monkeypatch):
    calls = []
    collect_runs = pinnable_fit.collect_runs
    monkeypatch.setattr(pinnable_fit, "collect_runs", lambda runs: calls.append(1) or collect_runs(runs))
    (row,) = further_rows(_data(doc))
    assert row.verdict == NOT_TESTED and "no ok max_pinnable run with free_target" in row.evidence
    assert row.beside == "" and len(calls) == 1


def test_wsl2_data_is_judged_as_wddm_noting_via_wsl2():
    """WSL2 reaches the Windows WDDM driver through /dev/dxg: the brief's WDDM claims are judged on
    it exactly as on native WDDM data, each evidence starting with "via WSL2"."""
    native = {r.n: r for r in brief_rows(_data(kinds_doc(platform="windows", driver_model="WDDM")))}
    wsl2 = {r.n: r for r in brief_rows(_data(kinds_doc(platform="linux", driver_model=WSL2_MODEL)))}
    assert set(native) == set(wsl2)
    for n, row in wsl2.items():
        assert row.verdict == native[n].verdict, n
        # the same sentence, naming the model where it names one
        seen = row.evidence.replace(WSL2_MODEL, "WDDM")
        assert seen == "via WSL2 (the Windows WDDM driver through /dev/dxg): " + native[n].evidence, n
        assert "a Windows claim" not in row.evidence and "a WDDM claim" not in row.evidence, n
