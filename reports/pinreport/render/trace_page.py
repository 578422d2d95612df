"""One self-contained HTML page for a judged trace (pinreport trace --html): the verdict per
GPU, what was pinned at the peak (by API family, call site and process), the calls by entry
point, and the timeline of held pinned bytes beside the device cost the samples show.
templates/trace.html.j2 displays what this module prepares."""

from typing import TypedDict

import jinja2

from pinreport.base.atomic_write import write_text
from pinreport.base.units import format_bytes
from pinreport.pipeline.commands import TraceReport
from pinreport.pipeline.values import AdviceSection
from pinreport.render.svg_charts import Chart, Series, line_chart

MIB = 1024 * 1024


def _timeline_chart(r: TraceReport):
    j, t = r.judgement, r.trace
    held = [(ms / 1000, b / MIB) for ms, b in t.pinned.timeline]
    if held:
        # From the start, and held to the end where nothing released it.
        held = [(0.0, 0.0), *held, (t.wall_ms / 1000, held[-1][1])]
    series = [Series("pinned bytes held (MiB)", held)]
    baseline = t.cost_at_peak.baseline_t_ms
    if baseline is not None:
        for d in j.devices:  # each with its index (judge_trace's reading of cost_at_peak)
            costs = r.device_costs.get(d.nvml_index, ())
            base = next((c for t_ms, c in costs if abs(t_ms - float(baseline)) < 1e-6), None)
            if base is None:
                continue
            points = [(t_ms / 1000, (c - base) / MIB * 100) for t_ms, c in costs if t_ms >= float(baseline)]
            series.append(Series(f"GPU {d.nvml_index} cost x100 (MiB)", points))
    return line_chart(
        "trace-timeline",
        "Pinned bytes held, and the device cost the NVML samples show (x100 to share the axis)",
        "seconds from the program's start",
        "MiB",
        series,
        x_format=lambda v: f"{v:g}",
        y_format=lambda v: f"{v:g}",
    )


class TracePage(TypedDict):
    """What templates/trace.html.j2 shows, each value prepared."""

    title: str
    verdict: str
    path: str
    status: dict[str, str | int | None]  # kind, exit_code, message
    tracing: dict[str, str | None]  # state, message
    summary: str
    rounding: str
    sizes: list[tuple[str, int]]
    peak: str
    families: list[tuple[str, str, str]]
    processes: list[tuple[str, str]]
    sites: list[tuple[str, str]]
    apis: list[tuple[str, int, int, str]]
    devices: list[dict[str, str | int]]
    notes: list[str]
    program_notes: list[tuple[str, str]]
    timeline: Chart
    advice: AdviceSection | None


def trace_context(r: TraceReport) -> TracePage:
    j, t = r.judgement, r.trace
    sites = sorted(t.pinned.peak_by_site.items(), key=lambda kv: -kv[1])
    return {
        "title": f"pinbench trace: {' '.join(t.command)}",
        "verdict": str(j.verdict),
        "path": t.path,
        # Every field the template reads, whichever the trace has (the schema requires none).
        "status": {"kind": t.status.kind or "unknown", "exit_code": t.status.exit_code, "message": t.status.message},
        "tracing": {"state": t.tracing.state or "unknown", "message": t.tracing.message},
        "summary": t.pinned.summary,
        "rounding": r.rounding,
        "sizes": [(format_bytes(b), n) for b, n in r.sizes[:8]],
        "peak": format_bytes(j.peak_bytes),
        "families": [(f, format_bytes(b), j.fits_used.get(f, "no fit")) for f, b in sorted(j.by_family.items())],
        "processes": [(w, format_bytes(b)) for w, b in sorted(r.processes.items())],
        "sites": [(s, format_bytes(b)) for s, b in sites[:10]],
        "apis": [(a, v.calls, v.failed, format_bytes(v.bytes_asked)) for a, v in sorted(r.calls.items())],
        "devices": [
            {
                "index": d.nvml_index,
                "verdict": str(d.verdict),
                "why": d.why,
                "reserve": format_bytes(round(d.reserve_per_gpu)) if d.reserve_per_gpu is not None else "",
            }
            for d in j.devices
        ],
        "notes": j.notes,
        "program_notes": list(t.notes.shown),
        "timeline": _timeline_chart(r),
        "advice": r.advice_section,
    }


def write_trace_html(r: TraceReport, path: str) -> None:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pinreport", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    html = env.get_template("trace.html.j2").render(**trace_context(r))
    write_text(path, html)  # the one atomic writer
