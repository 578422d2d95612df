"""One self-contained HTML page for a judged trace (pinreport trace --html): the verdict per
GPU, what was pinned at the peak (by API family, call site and process), the calls by entry
point, and the timeline of held pinned bytes beside the device cost the samples show.
templates/trace.html.j2 displays what this module prepares."""

from typing import Any

import jinja2

from pinreport.advice.build import Advice
from pinreport.advice.page import advice_context
from pinreport.analysis.trace import (
    TraceJudgement,
    asked_sizes,
    calls_by_api,
    pinning_processes,
    rounding_note,
    sample_costs,
)
from pinreport.base.atomic_write import write_text
from pinreport.base.units import format_bytes
from pinreport.render.svg_charts import Series, line_chart

MIB = 1024 * 1024


def _timeline_chart(j: TraceJudgement):
    t = j.trace.doc
    held = [(float(ms) / 1000, float(b) / MIB) for ms, b in t["pinned"].get("timeline", [])]
    if held:
        # From the start, and held to the end where nothing released it.
        held = [(0.0, 0.0), *held, (float(t.get("wall_ms") or 0) / 1000, held[-1][1])]
    series = [Series("pinned bytes held (MiB)", held)]
    baseline = t["cost_at_peak"].get("baseline_t_ms")
    if baseline is not None:
        for d in j.devices:  # each with its index (judge_trace's reading of cost_at_peak)
            costs = sample_costs(j.trace, d.nvml_index)
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


def trace_context(j: TraceJudgement, advice: Advice | None = None) -> dict[str, Any]:
    t = j.trace.doc
    sites = sorted((t["pinned"].get("peak_by_site") or {}).items(), key=lambda kv: -int(kv[1]))
    return {
        "title": f"pinbench trace: {' '.join(t.get('command', []))}",
        "verdict": str(j.verdict),
        "path": j.trace.path,
        # Every field the template reads, whichever the trace has (the schema requires none).
        "status": {"kind": "unknown", "exit_code": None, "message": None, **t["status"]},
        "tracing": {"state": "unknown", "message": None, **t["tracing"]},
        "summary": t["pinned"].get("summary", ""),
        "rounding": rounding_note(j.trace),
        "sizes": [(format_bytes(b), n) for b, n in asked_sizes(j.trace)[:8]],
        "peak": format_bytes(j.peak_bytes),
        "families": [(f, format_bytes(b), j.fits_used.get(f, "no fit")) for f, b in sorted(j.by_family.items())],
        "processes": [(w, format_bytes(b)) for w, b in sorted(pinning_processes(j.trace).items())],
        "sites": [(s, format_bytes(int(b))) for s, b in sites[:10]],
        "apis": [
            (a, v.get("calls", 0), v.get("failed", 0), format_bytes(v.get("bytes_asked", 0)))
            for a, v in sorted(calls_by_api(j.trace).items())
        ],
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
        "program_notes": sorted((k, str(v)) for k, v in (t.get("notes") or {}).items()),
        "timeline": _timeline_chart(j),
        "environment": t.get("environment", {}),
        "advice": advice_context(advice) if advice is not None else None,  # advice/page.py
    }


def write_trace_html(j: TraceJudgement, path: str, advice: Advice | None = None) -> None:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pinreport", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    html = env.get_template("trace.html.j2").render(**trace_context(j, advice))
    write_text(path, html)  # the one atomic writer
