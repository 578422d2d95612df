"""Plain-text output of `pinreport compare` and `pinreport reserve` (one formatter per format)."""

import math
from collections import Counter
from collections.abc import Sequence

from pinreport.compare import HISTORY, PREVIOUS, CompareReport, MetricVerdict
from pinreport.expect import ClaimVerdict
from pinreport.fit import Recommendation
from pinreport.rule import RuleResult, RuleVerdict
from pinreport.stats import Comparison, Verdict
from pinreport.units import format_bytes, format_delta, format_value

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
    return "\n".join(lines) + "\n"


def format_reserve(recs: Sequence[Recommendation], size: int, gpus: int, replayed: bool) -> str:
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
    return "\n".join(lines) + "\n"
