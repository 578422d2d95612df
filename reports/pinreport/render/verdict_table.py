"""The verdict table: metric verdicts, rule results and scenario claims as one table, the
rows that need reading first, each linked to its chart."""

from collections.abc import Sequence
from typing import TypedDict

from pinreport.base.labels import anchor
from pinreport.base.units import format_bytes, format_value
from pinreport.pipeline.values import TOO_FEW_NIGHTS, ClaimVerdict, CompareReport, RuleVerdict, Run, Verdict

# Verdicts that need no reading in the morning; folded below the others.
_PLAIN = {"SAME", "OK", "CONFIRMED", "NO-BASELINE", "NOT JUDGED", "NOT TESTED", "OVER-RESERVED"}


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    return format_value(value, unit)


class VerdictRow(TypedDict):
    status: str
    flag: bool  # REGRESSION, VIOLATION or REFUTED: read first
    what: str
    against: str
    current: str
    baseline: str
    delta: str
    test: str
    repeats: str
    reason: str
    link: str
    few_nights: bool  # AMBIGUOUS only for too few stored nights: grouped apart
    shown: bool  # unfolded


def verdict_rows(report: CompareReport, runs: Sequence[Run]) -> list[VerdictRow]:
    """Metric verdicts, rule results and scenario claims as one table; flagged rows
    (REGRESSION, VIOLATION, REFUTED) first, then AMBIGUOUS, then the rest, stable otherwise.
    A row AMBIGUOUS only for too few stored nights (a time metric's night rule) is `few_nights`:
    grouped and counted apart, never shown first."""
    rows: list[VerdictRow] = []
    granule_of: dict[tuple[str, str], int | None] = {}
    for run in runs:
        for name, m in run.metrics.items():
            granule_of[(run.id, name)] = m.granule
    for v in report.verdicts:
        c = v.comparison
        api = v.run_id.split("/")[1] if v.run_id.count("/") >= 1 else ""
        g = granule_of.get((v.run_id, v.metric))
        if c.p_value is not None:
            test = f"p = {c.p_value:.3g}"
        elif v.unit == "bytes":
            test = f"granule {format_bytes(g)}" if isinstance(g, (int, float)) else "granule unknown"
        else:
            test = ""
        rows.append(
            {
                "status": str(v.verdict),
                "flag": v.verdict == Verdict.REGRESSION,
                "what": f"{v.run_id} · {v.metric}",
                "against": v.kind,
                "current": _fmt(c.current_median if c.current_median is not None else v.current_median, v.unit),
                "baseline": _fmt(c.baseline_median, v.unit),
                "delta": _fmt(c.delta, v.unit),
                "test": test,
                "repeats": f"{c.n_current} / {c.n_baseline}" if c.n_baseline else str(c.n_current or ""),
                "reason": c.reason,
                "link": "#" + anchor("cost", v.scenario, api),
                "few_nights": False,
                "shown": False,
            }
        )
    for r in report.rule:
        rows.append(
            {
                "status": str(r.verdict),
                "flag": r.verdict == RuleVerdict.VIOLATION,
                "what": f"{r.run_id} · rule on {r.key}",
                "against": "band",
                "current": f"ratio {r.ratio:.4g}",
                "baseline": "",
                "delta": "",
                "test": f"± {r.uncertainty:.2g}" if r.uncertainty is not None else "granule unknown",
                "repeats": "",
                "reason": r.reason,
                "link": "#" + anchor("rule", r.scenario),
                "few_nights": False,
                "shown": False,
            }
        )
    for cl in report.claims:
        rows.append(
            {
                "status": str(cl.verdict),
                "flag": cl.verdict == ClaimVerdict.REFUTED,
                "what": f"{cl.scenario} · expect {cl.driver_model} {cl.limit} {cl.shown_value}",
                "against": "claim",
                "current": "",
                "baseline": "",
                "delta": "",
                "test": "",
                "repeats": str(cl.checked),
                "reason": cl.reason,
                "link": "#claims",
                "few_nights": False,
                "shown": False,
            }
        )
    for r in rows:
        r["few_nights"] = r["status"] == str(Verdict.AMBIGUOUS) and TOO_FEW_NIGHTS in r["reason"]
        r["shown"] = not r["few_nights"] and (
            r["flag"] or r["status"] not in _PLAIN or r["reason"].startswith("disturbed")
        )
    rows.sort(key=lambda r: 0 if r["flag"] else (1 if r["shown"] else 2))
    return rows
