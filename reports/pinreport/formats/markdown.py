"""Markdown output of `pinreport summary --markdown` (summary.md beside the results, the nightly's
job summary): the answer of answer.py as tables. One formatter per format: the text is console.py's."""

from pinreport.base.atomic_write import write_text
from pinreport.base.labels import probe_label, size_label
from pinreport.base.units import format_bytes
from pinreport.pipeline.answer import COMPARED, NO_STORE, Answer, GiB


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _pct(x: float) -> str:
    return f"{x:.2%}" if abs(x) < 0.01 else f"{x:.1%}"


def format_summary_markdown(answer: Answer) -> str:
    k = answer.key
    models = ", ".join(answer.driver_models) or "unknown"
    out = [f"## pinbench answer: {_cell(k.gpu)} ({k.gpu_count}, {k.platform}, {models}), driver {k.release}", ""]
    out.append(f"From `{answer.path}`.")
    if answer.budget:
        out += ["", _cell(answer.budget)]
    if answer.replayed:
        out += [
            "",
            "> **REPLAYED DATA**: derived from a real results file by the replay backend. No headline: "
            "these numbers only exercise the pipeline and say nothing about any driver.",
        ]
    rows = answer.headlines or answer.replayed_rows
    tag = "[REPLAYED] " if answer.replayed else ""
    out.append("")
    if rows:
        sizes = [size_label(s) for s in answer.reserve_sizes]
        out.append(
            "| api | GPUs | cost per pinned GiB | probe | repeats (runs) | spread (residual sd) | rule "
            + _cell(answer.band)
            + " | "
            + " | ".join(f"reserve per GPU at {s}" for s in sizes)
            + " |"
        )
        out.append("|" + " --- |" * (7 + len(sizes)))
        for r in rows:
            f = r.fit
            cost = "below resolution" if f.below_resolution else f"{format_bytes(r.per_gib)} ({_pct(r.per_gib / GiB)})"
            spread = "-" if f.below_resolution else format_bytes(f.residual_sd)
            rule = r.rule or "not judged"
            if r.ratio_range:
                rule += f" ({_pct(r.ratio_range[0])}-{_pct(r.ratio_range[1])})"
            reserves = {size_label(x.size): format_bytes(x.per_gpu) + (" \\*" if x.notes else "") for x in r.reserves}
            out.append(
                f"| {tag}{_cell(r.api)} | {r.gpus} | {cost} | {probe_label(r.family)} | {f.n} ({r.runs}) | {spread} "
                f"| {rule} | " + " | ".join(reserves.get(s, "-") for s in sizes) + " |"
            )
        notes = sorted({n for r in rows for x in r.reserves for n in x.notes})
        out.append("")
        out.append(
            "Cost: least-squares slope of held cost against pinned bytes; reserve: its 95% prediction bound."
            + (f" \\* {'; '.join(notes)}." if notes else "")
        )
    else:
        out.append(
            "No cost fit: no ok, undisturbed overhead, capacity or sweep run of a pinned API at two sizes or more."
        )
    c = answer.changes
    out.append("")
    if c.state == NO_STORE:
        out.append("**Since the previous driver release:** no store given, nothing to compare.")
    elif c.state != COMPARED:
        out.append(f"**Since the previous driver release:** {c.state} (no earlier release in the store).")
    else:
        few = f" ({c.few_nights} only for too few nights)" if c.few_nights else ""
        counts = ", ".join(f"{v} {n}{few if v == 'AMBIGUOUS' else ''}" for v, n in c.counts)
        out.append(f"**Since driver {c.release}:** {counts}.")
        out += [f"- {v.verdict} `{v.run_id}` {v.metric}: {_cell(v.comparison.reason)}" for v in c.named]
        if c.environment:
            out.append(
                f"- {len(c.environment)} other environment change(s): " + "; ".join(e.describe() for e in c.environment)
            )
    counts = ", ".join(f"{v} {n}" for v, n in answer.claim_counts())
    out += ["", f"**The brief's {len(answer.claims)} claims:** {counts}."]
    out += [f"- #{c.n} {c.verdict}: {_cell(c.evidence)}" for c in answer.claims if c.verdict != "NOT TESTED HERE"]
    trouble = (
        [f"problem: {p}" for p in answer.problems]
        + [f"disturbed: {d}" for d in answer.disturbed]
        + [f"waived: {w}" for w in answer.waived]
    )
    out.append("")
    if trouble:
        out.append(f"**Failed, disturbed or waived ({len(trouble)}):**")
        out += [f"- {_cell(t)}" for t in trouble]
    else:
        out.append("Nothing failed, was waived or was disturbed.")
    out.append("")
    out.append(f"Exit code {answer.exit_code} (as `pinreport compare`).")
    return "\n".join(out) + "\n"


def write_summary_markdown(answer: Answer, path: str) -> None:
    write_text(path, format_summary_markdown(answer))  # the one atomic writer
