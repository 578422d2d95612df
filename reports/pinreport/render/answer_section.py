"""The report's first screen: answer.py's answer as prepared cells (the template only displays).

A replayed file's rows come back with `replayed` set and are shown under a REPLAYED label, never
as the headline (answer.Answer.headlines is empty for it)."""

from typing import TypedDict

from pinreport.base.labels import probe_label, size_label
from pinreport.base.units import format_bytes, format_delta
from pinreport.pipeline.answer import COMPARED, FIRST_NIGHT, NO_STORE, Answer, GiB
from pinreport.pipeline.values import ClaimRow


def _pct(x: float) -> str:
    return f"{x:.2%}" if abs(x) < 0.01 else f"{x:.1%}"


class AnswerRow(TypedDict):
    api: str
    gpus: int
    cost: str
    cost_pct: str
    probe: str
    evidence: str
    rule: str
    rule_range: str
    reserves: list[str]


class AnswerSection(TypedDict):
    rows: list[AnswerRow]
    notes: list[str]
    replayed: bool
    budget: str | None
    sizes: list[str]
    band: str
    changes: str
    changed: list[str]
    claim_counts: str
    claims_decided: list[ClaimRow]
    trouble: int
    left_out: list[str]


def answer_section(answer: Answer) -> AnswerSection:
    rows: list[AnswerRow] = []
    for r in answer.headlines or answer.replayed_rows:
        f = r.fit
        rows.append(
            {
                "api": r.api,
                "gpus": r.gpus,
                "cost": "below resolution" if f.below_resolution else format_bytes(r.per_gib),
                "cost_pct": "" if f.below_resolution else _pct(r.per_gib / GiB),
                "probe": probe_label(r.family),
                "evidence": (
                    f"{f.n} repeats, {r.runs} runs, {size_label(f.x_min)}-{size_label(f.x_max)}; "
                    + (
                        f"all within {format_bytes(f.granule or 0)} of zero"
                        if f.below_resolution
                        else f"residual sd {format_bytes(f.residual_sd)}"
                    )
                ),
                "rule": r.rule or "not judged",
                "rule_range": (
                    ""
                    if r.ratio_range is None
                    else f"{_pct(r.ratio_range[0])}-{_pct(r.ratio_range[1])} of pinned, "
                    + ", ".join(f"{n} {v}" for v, n in r.rule_counts)
                ),
                # a reserve with notes (extrapolated, below resolution) is marked; the notes follow the table
                "reserves": [format_bytes(x.per_gpu) + (" *" if x.notes else "") for x in r.reserves],
            }
        )
    c = answer.changes
    if c.state == NO_STORE:
        changes, changed = "no store given: nothing to compare", []
    elif c.state == FIRST_NIGHT:
        changes, changed = "first night: nothing of this machine was stored before", []
    elif c.state != COMPARED:
        changes, changed = "no earlier driver release in the store (only this release's own nights)", []
    else:
        few = f" ({c.few_nights} only for too few nights)" if c.few_nights else ""
        counts = ", ".join(f"{v} {n}{few if v == 'AMBIGUOUS' else ''}" for v, n in c.counts)
        env = (
            f"; {len(c.environment)} other environment change(s), highlighted under Environment"
            if c.environment
            else ""
        )
        changes = f"since driver {c.release}: {counts}{env}"
        changed = [
            f"{v.verdict}: {v.run_id} · {v.metric}"
            + (f" ({format_delta(v.comparison.delta, v.unit)})" if v.comparison.delta is not None else "")
            for v in c.named
        ]
    decided = [x for x in answer.claims if x.verdict != "NOT TESTED HERE"]
    trouble = len(answer.problems) + len(answer.disturbed) + len(answer.waived)
    notes = sorted({n for r in answer.headlines or answer.replayed_rows for x in r.reserves for n in x.notes})
    return {
        "rows": rows,
        "notes": notes,
        "replayed": answer.replayed,
        "budget": answer.budget,
        "sizes": [size_label(s) for s in answer.reserve_sizes],
        "band": answer.band,
        "changes": changes,
        "changed": changed,
        "claim_counts": ", ".join(f"{n} {v}" for v, n in answer.claim_counts()),
        "claims_decided": decided,
        "trouble": trouble,
        "left_out": list(answer.left_out),
    }
