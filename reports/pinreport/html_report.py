"""The HTML report's data: everything the template shows, prepared here as plain values.

build_report() runs the verdicts (compare.py), the rule, the fits and the brief's claims, reads
the optional Google Benchmark files, and lays out the charts (svg_charts.py). render_html()
fills templates/report.html.j2 (Jinja2, autoescaped), which only displays. The page is
self-contained: inline CSS and SVG, no script, no external resource.
"""

import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from pinreport import brief_claims, kinds, pinnable
from pinreport.compare import HISTORY, PREVIOUS, CompareOptions, CompareReport, compare
from pinreport.environment import comparable_fields, driver_models, driver_release, store_key
from pinreport.errors import BadInputError
from pinreport.expect import ClaimVerdict
from pinreport.fit import fit_all, probe_family, recommend
from pinreport.load import ResultsFile
from pinreport.rule import (
    CAPACITY_LOSS,
    CONTROL_API,
    RULE_KINDS,
    RuleVerdict,
    held_costs,
    is_judged_key,
    is_shared_key,
)
from pinreport.stats import Verdict
from pinreport.store import REAL, StoreContents, measurement_id
from pinreport.svg_charts import Band, Chart, Mark, Series, line_chart
from pinreport.units import format_bytes, format_value, parse_size
from pinreport.versions import is_release, release_key

MiB, GiB = 1024**2, 1024**3
RESERVE_SIZES = (1 * GiB, 4 * GiB)

PASS, REGRESSION, RULE_VIOLATION, INFRASTRUCTURE = "PASS", "REGRESSION", "RULE VIOLATION", "INFRASTRUCTURE FAILURE"
DISTURBED = "DISTURBED"  # another process moved device memory: no verdict on those runs
# Verdicts that need no reading in the morning; folded below the others.
_PLAIN = {"SAME", "OK", "CONFIRMED", "NO-BASELINE", "NOT JUDGED", "NOT TESTED", "OVER-RESERVED"}
_NOT_ID = re.compile(r"[^A-Za-z0-9]+")


def anchor(*parts: str) -> str:
    """A stable HTML id from parts: ("cost", "quick/x", "cudaHostAlloc:mapped") -> cost-quick-x-..."""
    return "-".join(_NOT_ID.sub("-", p).strip("-") for p in parts)


def size_label(n: float) -> str:
    """Exact binary sizes as scenario files write them (64MiB, 4GiB); others via format_bytes."""
    for unit, f in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if n >= f and n % f == 0:
            return f"{int(n // f)}{unit}"
    return format_bytes(n)


def probe_label(key: str) -> str:
    """The probe a key belongs to, as the issue names them."""
    m = re.match(r"^nvml\.([0-9]+)\.(\w+)$", key)
    if key == "cuda.free":
        return "cudaMemGetInfo"
    if m:
        return f"NVML {m.group(2)} (GPU {m.group(1)})"
    if key.startswith("dxgi.local."):
        return "DXGI LOCAL"
    if key.startswith("dxgi.nonlocal."):
        return "DXGI NON_LOCAL"
    if key.startswith("pdh."):
        return f"PDH {key[4:]}"
    if key == CAPACITY_LOSS:
        return "capacity loss (largest cudaMalloc block)"
    return key


def headline_key(keys: list[str] | set[str]) -> str | None:
    """The probe charted when only one fits: cudaMemGetInfo, else the first dedicated key, else
    the capacity loss (capacity runs)."""
    if "cuda.free" in keys:
        return "cuda.free"
    judged = sorted(k for k in keys if is_judged_key(k))
    if judged:
        return judged[0]
    return CAPACITY_LOSS if CAPACITY_LOSS in keys else None


# --- verdict banner ---------------------------------------------------------------------------


def overall_verdict(report: CompareReport) -> tuple[str, list[str]]:
    """The banner: the most severe outcome first (an infrastructure failure makes the rest
    suspect), and every other outcome that applies beside it."""
    found = []
    if report.infrastructure:
        found.append(INFRASTRUCTURE)
    if report.disturbed:
        found.append(DISTURBED)
    if report.violations:
        found.append(RULE_VIOLATION)
    if report.regressions:
        found.append(REGRESSION)
    return (found[0], found[1:]) if found else (PASS, [])


# --- environment and controls -----------------------------------------------------------------


def _show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, (bool, type(None))) else str(v)


def environment_rows(current: dict[str, Any], baselines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every compared environment field, the changed ones first (the driver release is what is
    compared, so it is not among them: environment.comparable_fields)."""
    cur = comparable_fields(current)
    bases = [comparable_fields(b) for b in baselines]
    rows = []
    for name in sorted(set(cur).union(*[set(b) for b in bases])):
        now = cur.get(name, "(absent)")
        before: list[Any] = []
        for b in bases:
            v = b.get(name, "(absent)")
            if v not in before:
                before.append(v)
        changed = bool(bases) and any(v != now for v in before)
        rows.append(
            {"field": name, "current": _show(now), "baseline": " | ".join(_show(v) for v in before), "changed": changed}
        )
    rows.sort(key=lambda r: not r["changed"])
    return rows


def control_rows(doc: dict[str, Any]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(controls, null-control granule per probe) from a results document."""
    controls = doc.get("controls") or {}
    rows = []
    for name, c in sorted(controls.items()):
        if name == "granules" or not isinstance(c, dict):
            continue
        detail = []
        for k in ("bytes", "tolerance", "difference", "samples", "cuda_measuring_delta", "nvml_observer_delta"):
            if isinstance(c.get(k), (int, float)) and not isinstance(c.get(k), bool):
                detail.append(f"{k} {format_bytes(c[k]) if k != 'samples' else c[k]}")
        for k in ("why", "error"):
            if c.get(k):
                detail.append(str(c[k]))
        rows.append({"name": name, "verdict": str(c.get("verdict", "(none)")), "detail": "; ".join(detail)})
    granules = controls.get("granules") if isinstance(controls.get("granules"), dict) else {}
    grows = [
        {"probe": probe_label(k), "key": k, "granule": format_bytes(v) if isinstance(v, (int, float)) else str(v)}
        for k, v in sorted(granules.items())
    ]
    return rows, grows


# --- disturbed runs ---------------------------------------------------------------------------


def disturbed_rows(report: CompareReport) -> list[dict[str, Any]]:
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


# --- the verdict table ------------------------------------------------------------------------


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    return format_value(value, unit)


def verdict_rows(report: CompareReport, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Metric verdicts, rule results and scenario claims as one table; flagged rows
    (REGRESSION, VIOLATION, REFUTED) first, then AMBIGUOUS, then the rest, stable otherwise."""
    rows = []
    granule_of: dict[tuple[str, str], Any] = {}
    for run in runs:
        for name, m in run.get("metrics", {}).items():
            granule_of[(run["id"], name)] = m.get("granule")
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
            }
        )
    for r in rows:
        r["shown"] = r["flag"] or r["status"] not in _PLAIN or r["reason"].startswith("disturbed")
    rows.sort(key=lambda r: 0 if r["flag"] else (1 if r["shown"] else 2))
    return rows


# --- documents per release (for cost charts) and per night (for history) ----------------------


@dataclass(frozen=True)
class Night:
    label: str  # started_at date
    release: str
    doc: dict[str, Any]
    replayed: bool


def _when(started_at: object) -> str:
    """ "2026-11-30T02:04:23Z" -> "2026-11-30 02:04" (nightly runs share dates in tests)."""
    return started_at[:16].replace("T", " ") if isinstance(started_at, str) and started_at else "?"


def nights(current: ResultsFile, store: StoreContents) -> list[Night]:
    """The store's real files of the current file's group, oldest first, then the current file
    (unless the store holds it already)."""
    key = store_key(current.doc.get("environment") or {})
    me = measurement_id(current.doc)
    out = []
    seen_current = False
    for e in store.history:
        if e.namespace != REAL or e.key.group != key.group:
            continue
        seen_current = seen_current or measurement_id(e.doc) == me
        out.append(Night(_when(e.started_at), e.key.release, e.doc, False))
    if not seen_current:
        out.append(
            Night(
                _when(current.doc.get("started_at")),
                driver_release(current.doc.get("environment") or {}) or "unknown",
                current.doc,
                current.replayed,
            )
        )
    return out


def latest_per_release(all_nights: list[Night], current: ResultsFile) -> list[Night]:
    """One document per release (its latest night); the current file stands for its own."""
    by: dict[str, Night] = {}
    for n in all_nights:
        by[n.release] = n
    cur_rel = driver_release(current.doc.get("environment") or {}) or "unknown"
    by[cur_rel] = Night(cur_rel, cur_rel, current.doc, current.replayed)
    return sorted(by.values(), key=lambda n: (0, release_key(n.release)) if is_release(n.release) else (1, n.release))


def _rel_name(n: Night) -> str:
    return n.release + (" (REPLAYED)" if n.replayed else "")


def _groups(doc: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Ok rule-kind runs with held costs per (scenario, api) (capacity runs have none: their
    rule result is capacity.loss)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for run in doc.get("runs", []):
        plan = run.get("plan", {})
        if run.get("status") == "ok" and plan.get("kind") in RULE_KINDS and held_costs(run):
            out[(plan["scenario"], plan["api"])].append(run)
    return out


def _x_axis(runs: list[dict[str, Any]]) -> str:
    """ "size" when the sizes vary (or nothing varies), "count" when only the count does."""
    sizes = {r["plan"]["size_bytes"] for r in runs}
    counts = {r["plan"]["count"] for r in runs}
    return "count" if len(sizes) == 1 and len(counts) > 1 else "size"


def cost_charts(per_release: list[Night]) -> list[Chart]:
    """Held cost against pinned size (or buffer count) per scenario and api; one line per
    driver release and probe, so the chart shows which probe moves."""
    current_groups = _groups(per_release[-1].doc) if per_release else {}
    keys = sorted(set().union(*[set(_groups(n.doc)) for n in per_release])) if per_release else []
    charts = []
    for scenario, api in keys:
        runs_cur = current_groups.get((scenario, api)) or next(
            g[(scenario, api)] for g in (_groups(n.doc) for n in per_release) if (scenario, api) in g
        )
        axis = _x_axis(runs_cur)
        series = []
        for n in per_release:
            points: dict[str, list[tuple[float, float]]] = defaultdict(list)
            for run in _groups(n.doc).get((scenario, api), []):
                x = run["plan"]["count"] if axis == "count" else run["plan"]["size_bytes"]
                for key, cost in held_costs(run).items():
                    if is_judged_key(key) or is_shared_key(key):
                        points[key].append((float(x), cost.median / MiB))
            for key in sorted(points):
                series.append(Series(f"{_rel_name(n)} · {probe_label(key)}", points[key]))
        if axis == "count":
            x_label, fmt, log = "buffers held at once (count)", (lambda v: f"{v:g}"), True
        else:
            x_label, fmt, log = "pinned size per buffer", size_label, True
        title = f"{scenario}: {api}" + (" (control: pageable)" if api == CONTROL_API else "")
        charts.append(
            line_chart(
                anchor("cost", scenario, api),
                title,
                x_label,
                "held cost (MiB)",
                series,
                x_log=log,
                x_format=fmt,
                y_format=lambda v: f"{v:g}",
            )
        )
    return charts


def rule_charts(report: CompareReport, current: ResultsFile) -> tuple[list[Chart], list[dict[str, str]]]:
    """Per scenario: measured ratio against pinned bytes on the headline probe per api, the
    band, the fit and its prediction bound (the api asking for the most), and the reserve."""
    band = report.options.band
    env = current.doc.get("environment") or {}
    key = store_key(env)
    release = key.release
    fits = fit_all([(key, current.doc)])
    reserve_rows = []
    recs_at = {size: recommend(fits, size, 1, {key.group: release}) for size in RESERVE_SIZES}
    for rec in recs_at[RESERVE_SIZES[-1]]:
        row = {"api": rec.api, "probe": probe_label(rec.family.replace(".*.", ".0.")), "notes": "; ".join(rec.notes)}
        for size in RESERVE_SIZES:
            match = [r for r in recs_at[size] if r.api == rec.api]
            row[size_label(size)] = format_bytes(match[0].per_gpu) if match else ""
        row["ratio"] = f"{rec.per_gpu / RESERVE_SIZES[-1]:.3g}"
        reserve_rows.append(row)
    charts = []
    by_scenario: dict[str, list] = defaultdict(list)
    for r in report.rule:
        by_scenario[r.scenario].append(r)
    for scenario, results in sorted(by_scenario.items()):
        keys = {r.key for r in results if r.verdict != RuleVerdict.NOT_JUDGED}
        head = headline_key(keys)
        if head is None:
            continue
        series: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for r in results:
            if r.key == head and r.verdict != RuleVerdict.NOT_JUDGED:
                series[r.api].append((float(r.pinned), r.ratio))
        lines = [Series(f"{api} · {probe_label(head)}", pts) for api, pts in sorted(series.items())]
        xs = sorted({x for pts in series.values() for x, _ in pts})
        hlines = []
        scenario_recs = [
            (fk, f)
            for fk, f in fits.items()
            if fk.family == probe_family(head) and fk.api in series and f.usable and not f.below_resolution
        ]
        if scenario_recs and xs:
            fk, f = max(scenario_recs, key=lambda kv: kv[1].upper_bound(xs[-1]))
            grid = _log_grid(xs[0], xs[-1])
            lines.append(Series(f"fit ({fk.api})", [(x, f.predict(x) / x) for x in grid], dashed=True))
            lines.append(
                Series(
                    f"{f.confidence:.0%} prediction bound ({fk.api})", [(x, f.upper_bound(x) / x) for x in grid], True
                )
            )
            hlines.append(Mark(f.upper_bound(xs[-1]) / xs[-1], f"recommended reserve at {size_label(xs[-1])}"))
        charts.append(
            line_chart(
                anchor("rule", scenario),
                f"reservation rule: {scenario}",
                "total pinned bytes",
                "held cost / pinned bytes",
                lines,
                x_log=True,
                x_format=size_label,
                y_format=lambda v: f"{v:.3g}",
                band=Band(float(band.lower), float(band.upper), f"rule band {band}"),
                hlines=hlines,
            )
        )
    return charts, reserve_rows


def _log_grid(lo: float, hi: float, n: int = 12) -> list[float]:
    if lo <= 0 or hi <= lo:
        return [x for x in (lo, hi) if x > 0]
    a, b = math.log2(lo), math.log2(hi)
    return [2 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def history_charts(all_nights: list[Night], max_ticks: int = 8) -> list[Chart]:
    """Per scenario and api, the held cost on the headline probe of each run across nights,
    with a marker wherever the driver release changes."""
    if len(all_nights) < 2:
        return []
    values: dict[tuple[str, str], dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for i, n in enumerate(all_nights):
        for (scenario, api), runs in _groups(n.doc).items():
            for run in runs:
                costs = held_costs(run)
                head = headline_key(set(costs))
                if head is None:
                    continue
                plan = run["plan"]
                name = f"{size_label(plan['size_bytes'])} x{plan['count']} · {probe_label(head)}"
                values[(scenario, api)][name].append((float(i), costs[head].median / MiB))
    marks = [
        Mark(float(i), f"driver {_rel_name(n)}")
        for i, n in enumerate(all_nights)
        if i > 0 and n.release != all_nights[i - 1].release
    ]
    labels = [n.label + (" (replayed)" if n.replayed else "") for n in all_nights]
    stride = max(1, math.ceil(len(labels) / max_ticks))
    ticks = [float(i) for i in range(0, len(labels), stride)]

    def fmt(v: float) -> str:
        i = int(round(v))
        return labels[i] if 0 <= i < len(labels) else f"{v:g}"

    charts = []
    for (scenario, api), series in sorted(values.items()):
        charts.append(
            line_chart(
                anchor("history", scenario, api),
                f"history: {scenario}: {api}",
                "night (start date)",
                "held cost (MiB)",
                [Series(k, v) for k, v in sorted(series.items())],
                x_format=fmt,
                vmarks=marks,
                x_ticks=ticks,
            )
        )
    return charts


# --- Google Benchmark files -------------------------------------------------------------------


@dataclass
class BenchRows:
    transfer: list[dict[str, Any]] = field(default_factory=list)  # kind, op, bytes, fraction, file
    staging: list[dict[str, Any]] = field(default_factory=list)  # op, size, K, C, T, pinned, fraction
    baselines: list[dict[str, Any]] = field(default_factory=list)  # kind, op, size, fraction
    problems: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    replayed: bool = False


def read_bench(paths: list[str]) -> BenchRows:
    """The median rows of Google Benchmark JSON files (benchmarks/README.md names)."""
    out = BenchRows()
    for path in paths:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
            rows = doc["benchmarks"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            out.problems.append(f"{path}: not a Google Benchmark JSON file ({e})")
            continue
        out.files.append(path)
        ctx = doc.get("context") or {}
        out.replayed = out.replayed or "replay" in str(ctx.get("cuda.backend", "")).lower()
        for b in rows:
            if b.get("aggregate_name") != "median" or b.get("error_occurred"):
                continue
            name = str(b.get("run_name") or b.get("name", "")).split("/iterations:")[0].split("/repeats:")[0]
            parts = name.split("/")
            frac = b.get("fraction_of_link")
            if not isinstance(frac, (int, float)):
                continue
            if parts[0] == "transfer" and len(parts) == 4:
                out.transfer.append(
                    {
                        "kind": parts[1],
                        "op": parts[2],
                        "bytes": float(b.get("bytes", 0)),
                        "fraction": frac,
                        "file": path,
                    }
                )
            elif parts[0] == "staging" and len(parts) == 6:
                out.staging.append(
                    {
                        "op": parts[1],
                        "size": parts[2],
                        "T": parts[5].split(":")[-1],
                        "pinned": float(b.get("pinned_bytes", 0)),
                        "fraction": frac,
                    }
                )
            elif parts[0] == "staging_baseline" and len(parts) == 4:
                out.baselines.append({"kind": parts[1], "op": parts[2], "size": parts[3], "fraction": frac})
    return out


def bandwidth_charts(bench: BenchRows) -> list[Chart]:
    charts = []
    if bench.transfer or bench.staging:
        series: dict[str, list[tuple[float, float]]] = defaultdict(list)
        seen: dict[tuple[str, str, float], str] = {}
        for r in bench.transfer:
            k = (r["kind"], r["op"], r["bytes"])
            if k in seen:  # the same row in a second file: keep the first, the table has both
                continue
            seen[k] = r["file"]
            series[f"{r['kind']} {r['op']}"].append((r["bytes"], r["fraction"]))
        best: dict[tuple[str, str], float] = {}
        for r in bench.staging:
            k = (r["op"], r["size"])
            best[k] = max(best.get(k, 0.0), r["fraction"])
        for (op, size), f in sorted(best.items()):
            series[f"staging ring {op} (best K, C, T)"].append((float(parse_size(size)), f))
        charts.append(
            line_chart(
                "bandwidth-link",
                "bandwidth as a fraction of the link rate",
                "transfer size",
                "fraction of link",
                [Series(k, v) for k, v in sorted(series.items())],
                x_log=True,
                x_format=size_label,
                y_format=lambda v: f"{v:.2g}",
                y_range=(0.0, 1.0),
            )
        )
    groups: dict[tuple[str, str], dict[str, dict[float, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in bench.staging:
        pts = groups[(r["op"], r["size"])][f"T = {r['T']} threads"]
        pts[r["pinned"]] = max(pts.get(r["pinned"], 0.0), r["fraction"])
    for (op, size), series in sorted(groups.items()):
        hl = [
            Mark(b["fraction"], f"{b['kind']} direct copy")
            for b in bench.baselines
            if b["op"] == op and b["size"] == size
        ]
        charts.append(
            line_chart(
                anchor("staging", op, size),
                f"staging ring: {op} of {size}",
                "pinned bytes of the ring (K x C)",
                "fraction of link",
                [Series(k, sorted(v.items())) for k, v in sorted(series.items(), key=lambda kv: int(kv[0].split()[2]))],
                x_log=True,
                x_format=size_label,
                y_format=lambda v: f"{v:.2g}",
                y_range=(0.0, 1.0),
                hlines=hl,
                note="Best over the K x C pairs with equal pinned bytes.",
            )
        )
    return charts


# --- scenario kinds (results schema 2, docs/kinds.md) -------------------------------------------


def _kind_key(runs: list[dict[str, Any]], prefix: str) -> str | None:
    """The dedicated probe key a kind's chart draws: cudaMemGetInfo first (kinds.dedicated_headline)."""
    names = {m for r in runs for m in r.get("metrics", {})}
    return kinds.dedicated_headline(kinds.keys_for(prefix + "<key>", names))


def churn_charts(runs: list[dict[str, Any]]) -> list[Chart]:
    """Cost after each allocate/free cycle (cycle_<i> snapshots, median over repeats), and after
    the final wait, per churn run; one chart per scenario."""
    by_scenario: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for run in runs:
        if run.get("status") == "ok":
            by_scenario[run["plan"]["scenario"]].append(run)
    charts = []
    for scenario, group in sorted(by_scenario.items()):
        key = _kind_key(group, "churn.creep.") or "cuda.free"
        series = []
        for run in group:
            trace = kinds.snapshot_trace(run, key)
            if not trace:
                continue
            name = f"{run['plan']['api']} {kinds.params_text(run)}"
            series.append(Series(f"{name} · {probe_label(key)}", [(float(i), c / MiB) for i, c in trace]))
            final = kinds.final_cost(run, key)
            if final is not None:
                series.append(Series(f"{name} · after the final wait", [(float(trace[-1][0] + 1), final / MiB)]))
        if series:
            charts.append(
                line_chart(
                    anchor("churn", scenario),
                    f"churn trace: {scenario}",
                    "allocate/free cycle",
                    "cost after the free (MiB)",
                    series,
                    x_format=lambda v: f"{v:g}",
                    y_format=lambda v: f"{v:g}",
                    note="Cost relative to after_context, median over the ok repeats; "
                    "the single point after the last cycle is the snapshot after the final wait.",
                )
            )
    return charts


def sweep_charts(runs: list[dict[str, Any]]) -> list[Chart]:
    """Cost against pinned size (size_curve) or buffer count (count_curve), per sweep run."""
    charts = []
    for run in runs:
        if run.get("status") != "ok":
            continue
        points = kinds.sweep_points(run)
        for axis in ("size", "count"):
            keys = {k for a, k in points if a == axis}
            head = kinds.dedicated_headline(keys)
            shown = [k for k in (head, kinds.SHARED_BESIDE if kinds.SHARED_BESIDE in keys else None) if k]
            if not shown:
                continue
            series = [Series(probe_label(k), [(x, y / MiB) for x, y in points[(axis, k)]]) for k in shown]
            size_axis = axis == "size"
            charts.append(
                line_chart(
                    anchor("sweep", run["id"], axis),
                    f"sweep: {run['id']}",
                    "pinned size" if size_axis else "buffers held at once (count)",
                    "cost (MiB)",
                    series,
                    x_log=size_axis,
                    x_format=size_label if size_axis else (lambda v: f"{v:g}"),
                    y_format=lambda v: f"{v:g}",
                )
            )
    return charts


def workers_charts(runs: list[dict[str, Any]]) -> list[Chart]:
    """Per-worker context cost and per-worker pinned cost against the number of workers (the
    per_process variant), per scenario and api: flat lines are linear scaling."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for run in runs:
        params = run.get("plan", {}).get("params") or {}
        if run.get("status") == "ok" and params.get("variant", "per_process") == "per_process":
            groups[(run["plan"]["scenario"], run["plan"]["api"])].append(run)
    charts = []
    for (scenario, api), group in sorted(groups.items()):
        key = _kind_key(group, "workers.context_per_worker.") or _kind_key(group, "workers.pinned_per_worker.")
        if key is None:
            continue
        series = []
        for part in ("context", "pinned"):
            pts = []
            for run in group:
                value = kinds.median_of(run, f"workers.{part}_per_worker.{key}")
                workers = (run["plan"].get("params") or {}).get("workers")
                if value is not None and isinstance(workers, int):
                    pts.append((float(workers), value / MiB))
            if pts:
                series.append(Series(f"{part} per worker · {probe_label(key)}", pts))
        if series:
            charts.append(
                line_chart(
                    anchor("workers", scenario, api),
                    f"workers: {scenario}: {api}",
                    "worker processes (N)",
                    "cost per worker (MiB)",
                    series,
                    x_format=lambda v: f"{v:g}",
                    y_format=lambda v: f"{v:g}",
                    note="Phase deltas / N: a flat line means the cost grows linearly with the workers.",
                )
            )
    return charts


def _gib(v: float) -> str:
    return f"{v:.3g}"


def pinnable_charts(runs: list[dict[str, Any]]) -> list[Chart]:
    """Max pinnable against free VRAM before the search (pinnable.py), over the sweep kind's
    max_pinnable runs with free_target: one series per api, its capped (or timed-out) points,
    lower bounds, as a second series drawn as upward triangles in the api's colour, the
    least-squares fit over the uncapped points, and the line y = x."""
    by_api = pinnable.collect_runs(runs)
    if not by_api:
        return []
    series: list[Series] = []
    for api, points in by_api.items():
        free = [(p.free_before / GiB, p.max_pinnable / GiB) for p in points if not p.lower_bound]
        bounded = [(p.free_before / GiB, p.max_pinnable / GiB) for p in points if p.lower_bound]
        if free:
            series.append(Series(api, free))
        if bounded:
            series.append(Series(f"{api} · capped or timed out", bounded, lower_bound_of=api))
        fit = pinnable.fit_slope(points)
        if fit.slope is not None and fit.intercept is not None:
            xs = [x for x, _ in free]
            line = [(x, (fit.intercept + fit.slope * x * GiB) / GiB) for x in (min(xs), max(xs))]
            series.append(Series(f"fit ({api}): slope {fit.slope:.3g}", line, dashed=True))
    top = max(p.free_before for points in by_api.values() for p in points) / GiB
    series.append(Series("y = x", [(0.0, 0.0), (top, top)], dashed=True))
    return [
        line_chart(
            "sweep-max-pinnable-free-vram",
            "max pinnable against free VRAM",
            "free VRAM before the search (GiB)",
            "max pinnable (GiB)",
            series,
            x_format=_gib,
            y_format=_gib,
            note="Median over the ok repeats of each run. A triangle is a capped search (the cap pinned at "
            "once) or one that timed out: a lower bound, the real largest size may be higher; such points "
            "are left out of the fit.",
        )
    ]


# A kind's charts: every function's charts, in this order.
_KIND_CHARTS = {
    "churn": (churn_charts,),
    "sweep": (sweep_charts, pinnable_charts),
    "workers": (workers_charts,),
}


def kind_sections(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One section per scenario kind present: a table (run id, status, params, median and
    [min - max] of each headline metric; "not measured" where a run lacks one) and the charts
    that are cheap to draw (churn trace, sweep curve, max pinnable against free VRAM, workers
    against N)."""
    out = []
    for kind in kinds.KINDS:
        runs = kinds.runs_of(doc, kind)
        if not runs:
            continue
        columns = kinds.metric_columns(kind, runs)
        rows = []
        for run in runs:
            ok = run.get("status") == "ok"
            rows.append(
                {
                    "id": run["id"],
                    "status": run.get("status", ""),
                    "reason": run.get("reason", ""),
                    "params": kinds.params_text(run),
                    "repeats": str(len([r for r in run.get("repeats", []) if r.get("status") == "ok"])),
                    "cells": [kinds.cell(run, m).text if ok else "" for m in columns],
                }
            )
        out.append(
            {
                "kind": kind,
                "id": anchor("kind", kind),
                "title": kinds.TITLES[kind],
                "columns": columns,
                "rows": rows,
                "charts": [c for f in _KIND_CHARTS.get(kind, ()) for c in f(runs)],
            }
        )
    return out


def not_measured(doc: dict[str, Any]) -> list[dict[str, str]]:
    """The scenario kinds with no run here: named, never drawn from nothing."""
    present = kinds.kinds_present(doc)
    return [
        {"chart": kinds.TITLES[k], "why": f"no '{k}' runs in this results file"}
        for k in kinds.KINDS
        if k not in present
    ]


# --- the whole page ---------------------------------------------------------------------------


def platform_note(doc: dict[str, Any]) -> str:
    env = doc.get("environment") or {}
    models = set(driver_models(env))
    release = driver_release(env) or "unknown"
    if doc.get("backend") == "replay" or env.get("replayed") is True:
        source = (doc.get("replay") or {}).get("source", "a real results file")
        return (
            f"REPLAYED from {source}: the driver release {release} and driver model "
            f"{', '.join(sorted(models)) or 'unknown'} are labels a replay script may have set, not a "
            "measurement of that driver. Every verdict and claim below only exercises the pipeline."
        )
    if models == {"linux"}:
        return (
            f"Linux driver {release}: our Linux control, NOT Windows. Nothing on this page says what a "
            "Windows WDDM, TCC or MCDM driver does; the brief's Windows claims are NOT TESTED HERE."
        )
    return f"Driver model {', '.join(sorted(models)) or 'unknown'}, driver release {release}."


def build_report(
    current: ResultsFile,
    store: StoreContents,
    bench_paths: list[str] | None = None,
    options: CompareOptions | None = None,
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
    rule, reserve = rule_charts(report, current)
    rows = verdict_rows(report, current.runs)
    claims = brief_claims.judge(current.doc, report, bench)
    further_claims = brief_claims.judge_further(current.doc)
    replay_sources = []
    if current.replayed:
        replay_sources.append(f"{current.path} (replay of {(current.doc.get('replay') or {}).get('source', '?')})")
    if bench.replayed:
        replay_sources.append("benchmark files")
    bad = [str(p) for p in report.bad_input] + bench.problems
    return {
        "title": f"pinbench report: {store_key(current.doc.get('environment') or {}).describe_group()}",
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
        "rows": rows,
        "flagged": sum(r["flag"] for r in rows),
        "cost_charts": cost_charts(per_release),
        "rule_charts": rule,
        "reserve_rows": reserve,
        "reserve_sizes": [size_label(s) for s in RESERVE_SIZES],
        "band": str(report.options.band),
        "bandwidth_charts": bandwidth_charts(bench),
        "bench_files": bench.files,
        "history_charts": history_charts(all_nights),
        "nights": len(all_nights),
        "kind_sections": kind_sections(current.doc),
        "not_measured": not_measured(current.doc),
        "claims": claims,
        "further_claims": further_claims,
        "exit_code": report.exit_code(),
    }


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pinreport", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_html(context: dict[str, Any]) -> str:
    return _environment().get_template("report.html.j2").render(**context)


def write_html(context: dict[str, Any], path: str) -> None:
    try:
        Path(path).write_text(render_html(context), encoding="utf-8")
    except OSError as e:
        raise BadInputError(path, f"cannot write the report: {e.strerror}") from None
