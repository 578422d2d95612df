"""The HTML report's context: everything the template shows, prepared as plain values.

page_context() reads one PageReport (pipeline/report.py: the verdicts, the fits, the answer, the claims,
the store's nights, the benchmark rows, each computed there once) and lays it out: the tables
(render/*_table.py), the charts (render/charts/), the answer's section; page.py renders it.
It computes no verdict, fit or claim of its own.
"""

from typing import TypedDict

from pinreport.base.exit_codes import with_bad_input
from pinreport.pipeline.report import PageReport
from pinreport.pipeline.values import ClaimRow
from pinreport.render.answer_section import AnswerSection, answer_section
from pinreport.render.banner import overall_verdict, platform_note
from pinreport.render.charts.bandwidth import bandwidth_charts
from pinreport.render.charts.cost import cost_charts
from pinreport.render.charts.history import history_charts
from pinreport.render.charts.rule import rule_charts
from pinreport.render.controls_table import ControlRow, GranuleRow, control_rows
from pinreport.render.disturbed_table import DisturbedRow, disturbed_rows
from pinreport.render.environment_table import EnvironmentRow, environment_rows
from pinreport.render.kind_sections import KindSection, NotMeasured, kind_sections, not_measured
from pinreport.render.reserve_table import reserve_rows, reserve_sizes
from pinreport.render.svg_charts import Chart
from pinreport.render.verdict_table import VerdictRow, verdict_rows


class PageContext(TypedDict):
    """What templates/report.html.j2 shows, each value prepared: the template only displays."""

    title: str
    verdict: str
    verdict_also: list[str]
    replayed: bool
    replay_sources: list[str]
    platform_note: str
    current_path: str
    current_release: str
    started_at: str
    baseline_desc: str
    baseline_files: list[str]
    env_rows: list[EnvironmentRow]
    env_changed: int
    infrastructure: list[str]
    disturbed: list[DisturbedRow]
    disturbed_summary: str
    bad_input: list[str]
    notes: list[str]
    controls: list[ControlRow]
    granules: list[GranuleRow]
    answer: AnswerSection
    rows: list[VerdictRow]
    flagged: int
    few_nights: int
    cost_charts: list[Chart]
    rule_charts: list[Chart]
    reserve_rows: list[dict[str, str]]
    reserve_sizes: list[str]
    band: str
    bandwidth_charts: list[Chart]
    bench_files: list[str]
    history_charts: list[Chart]
    nights: int
    kind_sections: list[KindSection]
    not_measured: list[NotMeasured]
    claims: list[ClaimRow]
    further_claims: list[ClaimRow]
    exit_code: int


def page_context(r: PageReport) -> PageContext:
    """Everything the template shows, laid out from the page's Report."""
    current, report, bench, key = r.current, r.compared, r.bench, r.key
    bad = [str(p) for p in report.bad_input] + r.bench.problems
    verdict, also = overall_verdict(report, bad_input=bool(bad))
    baseline = r.baseline
    env_rows = environment_rows(current, [e.results for e in baseline.entries] if baseline else [])
    controls, granules = control_rows(current.controls)
    rows = verdict_rows(report, current.runs)
    replay_sources = []
    if current.replayed:
        replay_sources.append(f"{current.path} (replay of {current.replay_source or '?'})")
    if bench.replayed:
        replay_sources.append("benchmark files")
    return {
        "title": f"pinbench report: {key.describe_group()}",
        "verdict": verdict,
        "verdict_also": also,
        "replayed": bool(replay_sources),
        "replay_sources": replay_sources,
        "platform_note": platform_note(current),
        "current_path": current.path,
        "current_release": current.environment.release or "unknown",
        "started_at": current.started_at,
        "baseline_desc": baseline.describe() if baseline and baseline.found else "no stored baseline",
        "baseline_files": [e.path for e in baseline.entries] if baseline else [],
        "env_rows": env_rows,
        "env_changed": sum(r["changed"] for r in env_rows),
        "infrastructure": report.infrastructure,
        "disturbed": disturbed_rows(report),
        "disturbed_summary": report.disturbed_summary() or "",
        "bad_input": bad,
        "notes": report.notes,
        "controls": controls,
        "granules": granules,
        "answer": answer_section(r.answer),
        "rows": rows,
        "flagged": sum(r["flag"] for r in rows),
        "few_nights": sum(r["few_nights"] for r in rows),
        "cost_charts": cost_charts(r.costs),
        "rule_charts": rule_charts(r.rules, report.options.band),
        "reserve_rows": reserve_rows(r.reserve),
        "reserve_sizes": reserve_sizes(),
        "band": str(report.options.band),
        "bandwidth_charts": bandwidth_charts(bench),
        "bench_files": bench.files,
        "history_charts": history_charts(r.nights),
        "nights": len(r.nights.labels),
        "kind_sections": kind_sections(r.kinds),
        "not_measured": not_measured(r.kinds_not_measured),
        "claims": list(r.claims),
        "further_claims": list(r.further_claims),
        "exit_code": with_bad_input(r.exit_code, bool(bad)),  # the command's, which the banner shows
    }
