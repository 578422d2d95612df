"""The HTML report's context: everything the template shows, prepared as plain values.

page_context() reads one Report (pipeline.py: the verdicts, the fits, the answer, the claims,
the store's nights, the benchmark rows, each computed there once) and lays it out: the tables
(render/*_table.py), the charts (render/charts/), the answer's section; page.py renders it.
It computes no verdict, fit or claim of its own.
"""

from typing import Any

from pinreport.exit_codes import with_bad_input
from pinreport.labels import size_label
from pinreport.pipeline import Report
from pinreport.render.answer_section import answer_section
from pinreport.render.banner import overall_verdict, platform_note
from pinreport.render.charts.bandwidth import bandwidth_charts
from pinreport.render.charts.cost import cost_charts
from pinreport.render.charts.history import history_charts
from pinreport.render.charts.rule import rule_charts
from pinreport.render.controls_table import control_rows
from pinreport.render.disturbed_table import disturbed_rows
from pinreport.render.environment_table import environment_rows
from pinreport.render.kind_sections import kind_sections, not_measured
from pinreport.render.reserve_table import RESERVE_SIZES, reserve_rows
from pinreport.render.verdict_table import verdict_rows


def page_context(r: Report) -> dict[str, Any]:
    """Everything the template shows, as plain values."""
    current, report, bench, key = r.current, r.compared, r.bench, r.key
    bad = [str(p) for p in report.bad_input] + r.bench.problems
    verdict, also = overall_verdict(report, bad_input=bool(bad))
    baseline = r.baseline
    env_rows = environment_rows(current.doc, [e.doc for e in baseline.entries] if baseline else [])
    controls, granules = control_rows(current.doc)
    rows = verdict_rows(report, current.runs)
    replay_sources = []
    if current.replayed:
        replay_sources.append(f"{current.path} (replay of {(current.doc.get('replay') or {}).get('source', '?')})")
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
        "started_at": current.doc.get("started_at", ""),
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
        "cost_charts": cost_charts(r.per_release),
        "rule_charts": rule_charts(report.rule, report.options.band, r.fits),
        "reserve_rows": reserve_rows(r.fits, key),
        "reserve_sizes": [size_label(s) for s in RESERVE_SIZES],
        "band": str(report.options.band),
        "bandwidth_charts": bandwidth_charts(bench),
        "bench_files": bench.files,
        "history_charts": history_charts(r.nights),
        "nights": len(r.nights),
        "kind_sections": kind_sections(current.runs),
        "not_measured": not_measured(current.runs),
        "claims": list(r.claims),
        "further_claims": list(r.further_claims),
        "exit_code": with_bad_input(r.exit_code, bool(bad)),  # the command's, which the banner shows
    }
