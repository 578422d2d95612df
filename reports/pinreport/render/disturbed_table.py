"""The disturbed-runs table: what another process moved, and the evidence, per run."""

from typing import TypedDict

from pinreport.pipeline.values import CompareReport


class DisturbedRow(TypedDict):
    id: str
    what: str
    attempts: str
    metrics: int
    evidence: list[str]


def disturbed_rows(report: CompareReport) -> list[DisturbedRow]:
    """One row per run of the current file that another process disturbed: what was not judged
    and the evidence pinbench recorded (or pinreport found), one line each."""
    return [
        {
            "id": d.run_id,
            "what": "run ended disturbed" if d.whole_run else "probes disturbed in an ok run",
            "attempts": str(d.attempts) if d.attempts is not None else "",
            "metrics": len(d.metrics),
            "evidence": list(d.evidence),
        }
        for d in report.disturbed
    ]
