"""Plain-text output of `pinreport compare`, `reserve`, `summary`, `budget-compare`, `aa` and
`trace` (one formatter per format)."""

import math
from collections import Counter
from collections.abc import Sequence

from pinreport.base.labels import probe_label, size_label
from pinreport.base.text import terminal_lines
from pinreport.base.units import format_bytes, format_delta, format_value
from pinreport.pipeline.answer import COMPARED, NO_STORE, Answer, Changes, CostRow, GiB
from pinreport.pipeline.commands import BudgetReport, ReserveReport, TraceReport
from pinreport.pipeline.values import (
    BUDGET_REGRESSION,
    HISTORY,
    NIGHT_SPREAD_FACTOR,
    PREVIOUS,
    TIME_SHIFT_SPREADS,
    ClaimVerdict,
    CompareOptions,
    CompareReport,
    Comparison,
    MetricVerdict,
    NightResult,
    RuleResult,
    RuleVerdict,
    Verdict,
)

REPLAYED_TAG = "[REPLAYED] "
_QUIET = (Verdict.SAME, Verdict.NO_BASELINE)


def _value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    return format_value(v, unit)


def _delta(c: Comparison, unit: str) -> str:
    d = c.delta
    if d is None:
        return ""
    return f" ({'+' if unit == 'bytes' and d >= 0 else ''}{format_delta(d, unit)})"


def _cell(v: MetricVerdict | None) -> str:
    if v is None:
        return "-"
    return f"{v.verdict}{_delta(v.comparison, v.unit) if v.verdict not in _QUIET else ''}"


def _ratio(r: RuleResult) -> str:
    u = f" +- {r.uncertainty:.4f}" if r.uncertainty is not None else " +- ?"
    return f"{r.ratio:.4f}{u}"


def format_compare(report: CompareReport) -> str:
    tag = REPLAYED_TAG if report.replayed else ""
    lines = [f"{tag}pinreport compare: {report.current_path}"]
    if report.replayed:
        lines.append(
            f"{tag}REPLAYED DATA: derived from a real results file by the replay backend; "
            "not a measurement of any driver"
        )
    k = report.key
    lines.append(f"{tag}machine: {k.describe_group()}  driver release {k.release}")
    for kind in (PREVIOUS, HISTORY):
        b = report.baselines.get(kind)
        if b is None:
            continue
        lines.append(f"{tag}baseline: {b.describe()}: {len(b.entries)} stored file(s)")
        if b.changes:
            lines.append(f"{tag}  what else changed (not the driver):")
            lines.extend(f"{tag}    {c.describe()}" for c in b.changes)
        elif b.found:
            lines.append(f"{tag}  nothing else changed in the environment record")

    lines.append("")
    lines.append(f"{tag}Metrics: current median | vs previous release | vs own history")
    by_run: dict[str, dict[str, dict[str, MetricVerdict]]] = {}
    for v in report.verdicts:
        by_run.setdefault(v.run_id, {}).setdefault(v.metric, {})[v.kind] = v
    for run_id, metrics in by_run.items():
        lines.append(f"{tag}  {run_id}")
        for metric, kinds in metrics.items():
            any_v = next(iter(kinds.values()))
            cur = any_v.current_median
            lines.append(
                f"{tag}    {metric:<44} {_value(cur, any_v.unit):>12} | {_cell(kinds.get(PREVIOUS)):<28} "
                f"| {_cell(kinds.get(HISTORY))}"
            )
            for kind, v in kinds.items():
                if v.verdict not in _QUIET:
                    lines.append(f"{tag}      {kind}: {v.comparison.reason}")

    if report.rule:
        lines.append("")
        lines.append(f"{tag}Reservation rule: band {report.options.band} of pinned bytes, dedicated memory, per device")
        width = max(len(r.run_id) for r in report.rule)
        for r in report.rule:
            extra = "" if r.judged else f"  ({r.reason})"
            if r.verdict == RuleVerdict.OVER_RESERVED and r.factor is not None:
                extra = f"  ({r.factor:.3g}x over)" if math.isfinite(r.factor) else "  (nothing used)"
            lines.append(
                f"{tag}  {r.run_id:<{width}}  {r.key:<26} cost {format_bytes(r.cost):>11}  ratio {_ratio(r):<18} "
                f"{r.verdict}{extra}"
            )

    if report.claims:
        lines.append("")
        lines.append(f"{tag}Scenario claims (expect)")
        for c in report.claims:
            lines.append(f"{tag}  {c.scenario} {c.driver_model} {c.limit}={c.shown_value}: {c.verdict} ({c.reason})")

    if report.disturbed:
        lines.append("")
        lines.append(f"{tag}Disturbed by another process: NOT JUDGED (no verdict; exit code 3)")
        for d in report.disturbed:
            lines.append(f"{tag}  {d.describe()}")
    for title, items in (
        ("Infrastructure problems", report.infrastructure),
        ("Bad input (skipped, the rest analysed)", [str(e) for e in report.bad_input]),
        ("Notes", report.notes),
    ):
        if items:
            lines.append("")
            lines.append(f"{tag}{title}")
            lines.extend(f"{tag}  {i}" for i in items)

    if report.disturbed_summary():
        lines.append("")
        lines.append(f"{tag}{report.disturbed_summary()}")
    counts = Counter(str(v.verdict) for v in report.verdicts)
    rule_counts = Counter(str(r.verdict) for r in report.rule if r.judged)
    claim_counts = Counter(str(c.verdict) for c in report.claims if c.verdict != ClaimVerdict.NOT_TESTED)
    lines.append("")
    lines.append(
        f"{tag}Summary: metrics "
        + (", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "none")
        + "; rule "
        + (", ".join(f"{n} {v}" for v, n in sorted(rule_counts.items())) or "not applied")
        + "; claims "
        + (", ".join(f"{n} {v}" for v, n in sorted(claim_counts.items())) or "none tested")
        + f"; exit code {report.exit_code()}"
    )
    return terminal_lines(lines)


def format_budget_compare(report: BudgetReport) -> str:
    """`pinreport budget-compare`: one line per family, the verdict first."""
    old, new, verdicts = report.old, report.new, report.verdicts
    lines = [
        f"pinreport budget-compare: {new.path} against {old.path}",
        f"  old: {old.machine}",
        f"  new: {new.machine}",
    ]
    for v in verdicts:
        sizes = " -> ".join(format_bytes(x) if x is not None else "no answer" for x in (v.old, v.new))
        lines.append(f"{v.verdict} {v.family}: safe budget {sizes}: {v.why}")
    regressions = sum(v.verdict == BUDGET_REGRESSION for v in verdicts)
    lines.append(f"{regressions} regression(s) among {len(verdicts)} families")
    return terminal_lines(lines)


def format_reserve(report: ReserveReport) -> str:
    recs, size, gpus, replayed = report.recommendations, report.size, report.gpus, report.replayed
    tag = REPLAYED_TAG if replayed else ""
    lines = [f"{tag}pinreport reserve: {format_bytes(size)} pinned, used by {gpus} GPU(s)"]
    if replayed:
        lines.append(f"{tag}REPLAYED DATA: fits of replayed files, not of measurements")
    for r in recs:
        f = r.fit
        model = (
            "below resolution"
            if f.below_resolution
            else f"cost = {format_bytes(f.base)} + {f.slope:.4f} x pinned bytes (n={f.n})"
        )
        lines.append(f"{tag}{'/'.join(r.group)} driver {r.release}  {r.api}")
        lines.append(f"{tag}  fit on {r.family} ({r.fit_gpus}-GPU runs): {model}")
        lines.append(
            f"{tag}  reserve {format_bytes(r.per_gpu)} per GPU ({r.per_gpu / size:.1%} of the pinned size, "
            f"{f.confidence:.0%} prediction bound), {format_bytes(r.total)} over {gpus} GPU(s)"
        )
        lines.extend(f"{tag}  note: {n}" for n in r.notes)
    if not recs:
        lines.append(f"{tag}no usable fit for this selection")
    return terminal_lines(lines)


def _percent(x: float) -> str:
    return f"{x:.2%}" if abs(x) < 0.01 else f"{x:.1%}"


def _fit_text(row: CostRow) -> tuple[str, str]:
    """The fitted cost of one pinned GiB and its probe; then where it comes from: repeats, spread."""
    f = row.fit
    measured = f"from {f.n} repeats of {row.runs} run(s) at {format_bytes(f.x_min)}-{format_bytes(f.x_max)}"
    if f.below_resolution:
        return "below resolution", f"{measured}; every repeat within {format_bytes(f.granule or 0)} of zero"
    cost = f"{format_bytes(row.per_gib)} per pinned GiB ({_percent(row.per_gib / GiB)}) on {probe_label(row.family)}"
    return cost, f"{measured}; spread (residual sd) {format_bytes(f.residual_sd)}"


def _rule_text(row: CostRow, band: str) -> str:
    if not row.rule:
        return "rule not judged"
    counts = ", ".join(f"{v} {n}" for v, n in row.rule_counts)
    lo, hi = row.ratio_range
    span = _percent(lo) if lo == hi else f"{_percent(lo)}-{_percent(hi)}"
    return f"rule {band}: {row.rule} (cost {span} of the pinned bytes; {counts})"


def _reserve_text(row: CostRow) -> str:
    parts = [
        f"{size_label(r.size)}: {format_bytes(r.per_gpu)}" + (f" ({'; '.join(r.notes)})" if r.notes else "")
        for r in row.reserves
    ]
    return f"reserve per GPU {', '.join(parts)}"


def format_summary(answer: Answer) -> str:
    """`pinreport summary`: the answer in one screen (answer.py)."""
    tag = REPLAYED_TAG if answer.replayed else ""
    k = answer.key
    models = ", ".join(answer.driver_models) or "unknown"
    lines = [f"{tag}pinbench answer: {k.gpu} ({k.gpu_count}, {k.platform}, driver model {models}), driver {k.release}"]
    lines.append(f"{tag}  from {answer.path}")
    if answer.budget:  # a measurement of its own (`pinbench budget`), never replayed
        lines.append(answer.budget)
    if answer.replayed:
        lines.append(
            f"{tag}REPLAYED DATA: derived from a real results file by the replay backend; no headline, "
            "these numbers only exercise the pipeline and say nothing about any driver"
        )
    rows = answer.headlines or answer.replayed_rows
    if rows:
        lines.append(f"{tag}What pinning costs in VRAM (least-squares fit, 95% prediction bound for the reserve):")
    for row in rows:
        cost, evidence = _fit_text(row)
        lines.append(f"{tag}  {row.api}, {row.gpus} GPU(s): {cost}")
        lines.append(f"{tag}    {evidence}")
        lines.append(f"{tag}    {_rule_text(row, answer.band)}")
        lines.append(f"{tag}    {_reserve_text(row)}")
    if not rows:
        lines.append(
            f"{tag}No cost fit: no ok, undisturbed overhead, capacity or sweep run of a pinned API "
            "at two sizes or more."
        )
    lines.extend(f"{tag}{line}" for line in _changes_lines(answer))
    counts = ", ".join(f"{v} {n}" for v, n in answer.claim_counts())
    decided = [c for c in answer.claims if c.verdict != "NOT TESTED HERE"]
    lines.append(
        f"{tag}The brief's {len(answer.claims)} claims: {counts}"
        + (": " + "; ".join(f"#{c.n} {c.verdict}" for c in decided) if decided else "")
    )
    trouble = (
        [("problem", p) for p in answer.problems]
        + [("disturbed", d) for d in answer.disturbed]
        + [("left out", x) for x in answer.left_out if not answer.disturbed]
        + [("waived", w) for w in answer.waived]
    )
    if trouble:
        lines.append(f"{tag}Failed, disturbed or waived ({len(trouble)}):")
        lines.extend(f"{tag}  {what}: {text}" for what, text in trouble[:8])
        if len(trouble) > 8:
            lines.append(f"{tag}  ... and {len(trouble) - 8} more (pinreport compare lists them all)")
    else:
        lines.append(f"{tag}Nothing failed, was waived or was disturbed.")
    lines.append(f"{tag}Exit code {answer.exit_code} (as pinreport compare).")
    return terminal_lines(lines)


def _change_counts(c: Changes) -> str:
    few = f" ({c.few_nights} only for too few nights)" if c.few_nights else ""
    return ", ".join(f"{v} {n}{few if v == 'AMBIGUOUS' else ''}" for v, n in c.counts)


def _changes_lines(answer: Answer) -> list[str]:
    c = answer.changes
    if c.state == NO_STORE:
        return ["Since the previous driver release: no store given, nothing to compare (--store DIR)."]
    if c.state != COMPARED:
        return [f"Since the previous driver release: {c.state} (no earlier release in the store)."]
    env = f"; {len(c.environment)} other environment change(s)" if c.environment else ""
    lines = [f"Since driver {c.release}: {_change_counts(c)}{env}"]
    lines.extend(f"  {v.verdict} {v.run_id} {v.metric}{_delta(v.comparison, v.unit)}" for v in c.named)
    return lines


def _rate(hit: int, total: int) -> str:
    return f"{hit}/{total} ({hit / total:.0%})" if total else "0/0 (none injected)"


def format_aa(results: Sequence[NightResult], options: CompareOptions) -> str:
    lines = [
        f"pinreport aa: {len(results)} nights, each judged against the other {len(results) - 1} "
        f"(night rule: min {options.min_nights} nights, margin max({max(options.floor, options.time_floor):.0%}, "
        f"{NIGHT_SPREAD_FACTOR:g} x night spread))"
    ]
    for r in results:
        judged, total = r.time_judged, r.time_total
        lines.append(f"  {r.path}")
        lines.append(f"    false alarms: {len(r.false_alarms)}")
        lines.extend(f"      {a}" for a in r.false_alarms)
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(r.time_verdicts.items())) or "none"
        lines.append(f"    time metrics judged: {judged} of {total} ({verdicts})")
        lines.append(
            f"    injected time shifts of {TIME_SHIFT_SPREADS:g} x night spread: detected "
            f"{_rate(r.time_detected, r.time_injected)}; {r.time_under_floor} missed were under the time floor; "
            f"{r.time_not_injected} judged metrics had spread 0"
        )
        lines.append(f"    injected byte shifts of one granule: detected {_rate(r.bytes_detected, r.bytes_injected)}")
        lines.extend(f"      missed: {m}" for m in r.bytes_missed[:5])
        if len(r.bytes_missed) > 5:
            lines.append(f"      ... and {len(r.bytes_missed) - 5} more")
    alarms = sum(bool(r.false_alarms) for r in results)
    lines.append(
        f"Summary: nights with a false alarm {alarms}/{len(results)} ({alarms / len(results):.0%} per night); "
        f"time metrics judged {sum(r.time_judged for r in results)} of {sum(r.time_total for r in results)}; "
        f"time shifts detected {_rate(sum(r.time_detected for r in results), sum(r.time_injected for r in results))}; "
        f"byte shifts detected {_rate(sum(r.bytes_detected for r in results), sum(r.bytes_injected for r in results))}"
    )
    return terminal_lines(lines)


def format_trace(r: TraceReport) -> str:
    j, t = r.judgement, r.trace
    lines = [
        f"{t.path}: {j.verdict}",
        f"  program: {' '.join(t.command)} -> {t.status.kind} {t.status.exit_code}",
        f"  tracing: {t.tracing.state} {t.tracing.message or ''}".rstrip(),
        f"  {t.pinned.summary}; peak {format_bytes(j.peak_bytes)} pinned",
    ]
    if r.rounding:
        lines.append(f"  {r.rounding}")
    for fam, b in sorted(j.by_family.items()):
        used = j.fits_used.get(fam, "no fit")
        lines.append(f"    {fam}: {format_bytes(b)} (store fit: {used})")
    for where, b in sorted(r.processes.items()):
        lines.append(f"    held by the {where}: {format_bytes(b)}")
    sites = sorted(t.pinned.peak_by_site.items(), key=lambda kv: -kv[1])
    for site, b in sites[:5]:
        lines.append(f"    call site {site}: {format_bytes(b)}")
    for api, v in sorted(r.calls.items()):
        lines.append(f"    {api}: {v.calls} calls, {v.failed} failed, asked {format_bytes(v.bytes_asked)}")
    for d in j.devices:
        reserve = f"; reserve {format_bytes(round(d.reserve_per_gpu))} per GPU" if d.reserve_per_gpu is not None else ""
        lines.append(f"  GPU {d.nvml_index}: {d.verdict}: {d.why}{reserve}")
    for n in j.notes:
        lines.append(f"  note: {n}")
    return terminal_lines(lines)
