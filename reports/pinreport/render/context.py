"""The HTML report's context: everything the template shows, prepared as plain values.

build_report() runs the verdicts (compare.py), the answer of the first screen (answer.py), the
fits, the brief's claims (claims/), reads the
optional Google Benchmark files (bench_rows.py), aggregates the store's nights (history.py) and
lays out the tables (render/*_table.py) and charts (render/charts/); page.py renders it.
"""

from typing import Any

from pinreport.analysis.compare import HISTORY, PREVIOUS, CompareOptions, compare
from pinreport.analysis.fit import fit_all
from pinreport.analysis.history import latest_per_release, nights
from pinreport.answer import build_answer
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import brief_rows, further_rows
from pinreport.environment import driver_release, store_key
from pinreport.labels import size_label
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
from pinreport.result.bench_rows import read_bench
from pinreport.result.budget import BudgetDocument
from pinreport.result.load import ResultsFile
from pinreport.store.reading import StoreContents


def build_report(
    current: ResultsFile,
    store: StoreContents,
    bench_paths: list[str] | None = None,
    options: CompareOptions | None = None,
    budget: BudgetDocument | None = None,
) -> dict[str, Any]:
    """Everything the template shows, as plain values."""
    report = compare(current, store, options)
    bench = read_bench(bench_paths or [])
    verdict, also = overall_verdict(report)
    all_nights = nights(current, store)
    per_release = latest_per_release(all_nights, current)
    baseline = report.baselines.get(PREVIOUS)
    if baseline is None or not baseline.found:
        baseline = report.baselines.get(HISTORY)
    env_rows = environment_rows(current.doc, [e.doc for e in baseline.entries] if baseline else [])
    controls, granules = control_rows(current.doc)
    key = store_key(current.doc.get("environment") or {})
    fits = fit_all([(key, current.doc)])
    rows = verdict_rows(report, current.runs)
    claim_data = ClaimData(current.doc, report, bench)
    replay_sources = []
    if current.replayed:
        replay_sources.append(f"{current.path} (replay of {(current.doc.get('replay') or {}).get('source', '?')})")
    if bench.replayed:
        replay_sources.append("benchmark files")
    bad = [str(p) for p in report.bad_input] + bench.problems
    return {
        "title": f"pinbench report: {key.describe_group()}",
        "verdict": verdict,
        "verdict_also": also,
        "replayed": bool(replay_sources),
        "replay_sources": replay_sources,
        "platform_note": platform_note(current.doc),
        "current_path": current.path,
        "current_release": driver_release(current.doc.get("environment") or {}) or "unknown",
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
        "answer": answer_section(build_answer(current.path, current.doc, report, stored=True, budget=budget)),
        "rows": rows,
        "flagged": sum(r["flag"] for r in rows),
        "few_nights": sum(r["few_nights"] for r in rows),
        "cost_charts": cost_charts(per_release),
        "rule_charts": rule_charts(report.rule, report.options.band, fits),
        "reserve_rows": reserve_rows(fits, key),
        "reserve_sizes": [size_label(s) for s in RESERVE_SIZES],
        "band": str(report.options.band),
        "bandwidth_charts": bandwidth_charts(bench),
        "bench_files": bench.files,
        "history_charts": history_charts(all_nights),
        "nights": len(all_nights),
        "kind_sections": kind_sections(current.doc),
        "not_measured": not_measured(current.doc),
        "claims": brief_rows(claim_data),
        "further_claims": further_rows(claim_data),
        "exit_code": report.exit_code(),
    }
