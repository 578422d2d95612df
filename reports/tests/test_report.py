"""pipeline/report.py: one Report per results file, each analysis computed once, eagerly; the outputs read it."""

import dataclasses

import pytest
from builders import GiB, MiB, results_doc, run_doc
from pinreport.formats.console import format_compare, format_summary
from pinreport.pipeline import report as pipeline
from pinreport.pipeline.report import compare_report, run_pipeline
from pinreport.readers.results import ResultsFile
from pinreport.render.context import page_context
from pinreport.store.reading import StoreContents


def _doc() -> dict:
    return results_doc(
        [
            run_doc(api="cudaMallocHost", size=1 * GiB, costs={"cuda.free": [3 * MiB, 4 * MiB, 5 * MiB]}, nonce="a"),
            run_doc(api="cudaMallocHost", size=3 * GiB, costs={"cuda.free": [7 * MiB, 8 * MiB, 9 * MiB]}, nonce="b"),
        ]
    )


def _counting(monkeypatch, name: str) -> list[int]:
    calls = [0]
    real = getattr(pipeline, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, name, counted)
    return calls


def test_the_page_and_the_summary_read_one_report_computed_once(monkeypatch):
    fits, claims, further = (_counting(monkeypatch, n) for n in ("fit_all", "brief_rows", "further_rows"))
    report = run_pipeline(ResultsFile("current.json", _doc()), StoreContents(root=""), stored=False)
    context = page_context(report)
    summary = format_summary(report.answer)
    page_context(report)  # a second output reads the same values
    assert (fits[0], claims[0], further[0]) == (1, 1, 1)
    # the answer's claims are the page's (no benchmark file): one evaluation, one verdict each
    assert report.answer.claims == report.claims and context["claims"] == list(report.claims)
    assert context["answer"]["rows"][0]["cost"] == "2.00 MiB"
    assert "cudaMallocHost" in summary
    assert context["exit_code"] == report.exit_code == report.compared.exit_code() == 0


def test_compare_pays_for_no_fit_and_no_claim(monkeypatch):
    fits, claims = _counting(monkeypatch, "fit_all"), _counting(monkeypatch, "brief_rows")
    report = compare_report(ResultsFile("current.json", _doc()), StoreContents(root=""))
    assert "Summary:" in format_compare(report.compared)
    assert (fits[0], claims[0]) == (0, 0)


def test_every_value_the_page_shows_is_computed_before_any_output_reads_it(monkeypatch):
    """Eager: run_pipeline computes the fits, the claims, the answer, the nights and every chart's
    points; laying the page out twice computes nothing more (before: on first use, by the page)."""
    report = run_pipeline(ResultsFile("current.json", _doc()), StoreContents(root=""), stored=False)
    fits, claims, further, views = (
        _counting(monkeypatch, n) for n in ("fit_all", "brief_rows", "further_rows", "kind_views")
    )
    page_context(report)
    page_context(report)
    format_summary(report.answer)
    assert (fits[0], claims[0], further[0], views[0]) == (0, 0, 0, 0)
    assert report.reserve and report.reserve[0].api == "cudaMallocHost"
    assert [v.kind for v in report.kinds] == [] and report.nights.labels[-1].startswith("2025-06-01")


def test_the_report_is_read_only():
    report = run_pipeline(ResultsFile("current.json", _doc()), StoreContents(root=""))
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.compared = None  # type: ignore[misc]
    assert report.key.release == "580.65.06"
