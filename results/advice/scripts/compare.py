"""Predicted against measured, side by side (results/advice/README.md): for each program, the
advice on its traced run (`pinreport advise --json`, OUT/<program>-advice.json) and the traced
runs of its changed versions (OUT/<program>-<mode>.trace.json). Standard library only, so it runs
wherever the traces are.

  python3 compare.py OUT            writes OUT/comparison.md and OUT/comparison.json

Per option: pinned bytes (the advice's bytes_after against the changed run's peak), VRAM (the
advice's vram_after and its bound against the changed run's device cost at the peak, where one
was measured and not disturbed), copy speed (the as-is run's measured GB/s times the option's
speed ratio against the changed run's measured GB/s). "within" says whether the measurement falls
inside the fit's bound (or one cost step, the reading's resolution) and the bytes within 1%.
"""

import json
import sys
from pathlib import Path

MODE_OF_OPTION = {
    "over_allocation": "exact",
    "staging_ring": "ring",
    "pageable": "pageable",
    "register_window": "window",
}
PROGRAMS = ("train_loop", "staging_loop")
MIB = 1024 * 1024


def _load(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _notes(trace) -> dict:
    return (trace or {}).get("notes") or {}


def measured(trace) -> dict:
    """Peak pinned bytes, device cost at the peak (summed over GPUs, None if not measured or
    disturbed, with why) and the copy speed the program noted."""
    if trace is None:
        return {"peak_bytes": None, "vram": None, "vram_why": "not run", "copy_gbps": None, "status": None}
    cap = trace.get("cost_at_peak") or {}
    vram, why = 0, []
    for d in cap.get("devices", []):
        if d.get("disturbances"):
            why.append(f"GPU {d.get('nvml_index')} DISTURBED")
        elif d.get("cost_bytes") is None:
            why.append(d.get("why") or "not measured")
        else:
            vram += int(d["cost_bytes"])
    if cap.get("baseline_before_context"):
        why.append("no baseline before the context")
    status = trace.get("status") or {}
    return {
        "peak_bytes": (trace.get("pinned") or {}).get("peak_bytes"),
        "vram": None if why or not cap.get("devices") else vram,
        "vram_why": "; ".join(why),
        "copy_gbps": _notes(trace).get("copy_gbps"),
        "status": f"{status.get('kind')} {status.get('exit_code')}",
        "blocks": sorted({c["bytes"] for c in trace.get("calls", []) if c.get("result") == 0 and c.get("bytes")}),
        "apis": sorted({c["api"] for c in trace.get("calls", []) if c.get("result") == 0}),
    }


def _within_bytes(pred, got) -> bool | None:
    if pred is None or got is None:
        return None
    return abs(got - pred) <= max(0.01 * max(pred, 1), MIB)


def _within_vram(pred, bound, got, step) -> bool | None:
    if pred is None or got is None:
        return None
    half = max((bound - pred) if bound is not None else 0.0, float(step))
    return abs(got - pred) <= half


def compare_program(out: Path, program: str) -> dict:
    advice = _load(out / f"{program}-advice.json")
    base = measured(_load(out / f"{program}-as_is.trace.json"))
    row = {"program": program, "as_is": base, "advice": None, "options": []}
    if advice is None:
        row["advice_missing"] = f"{out / (program + '-advice.json')} is missing: run pinreport advise (README.md)"
        return row
    prog = advice["program"]
    step = advice.get("cost_step") or 2 * MIB
    cost = prog["cost"]
    row["advice"] = {
        "verdict": prog["verdict"]["words"],
        "kind": prog["verdict"]["kind"],
        "threshold": prog["verdict"]["threshold"],
        "held_bytes": cost["held_bytes"],
        "vram_predicted": cost["vram_predicted"],
        "vram_bound": cost["vram_bound"],
        "vram_within": _within_vram(cost["vram_predicted"], cost["vram_bound"], base["vram"], step),
    }
    for o in prog["options"]:
        mode = MODE_OF_OPTION[o["name"]]
        got = measured(_load(out / f"{program}-{mode}.trace.json"))
        speed_pred = (
            base["copy_gbps"] * o["speed_ratio"]
            if base["copy_gbps"] is not None and o["speed_ratio"] is not None
            else None
        )
        row["options"].append(
            {
                "option": o["name"],
                "mode": mode,
                "applies": o["applies"],
                "complete": o["complete"],
                "missing": [m["what"] for m in o["missing"]],
                "bytes_predicted": o["bytes_after"],
                "bytes_measured": got["peak_bytes"],
                "bytes_within": _within_bytes(o["bytes_after"], got["peak_bytes"]),
                "vram_predicted": o["vram_after"],
                "vram_bound": o["vram_after_bound"],
                "vram_measured": got["vram"],
                "vram_why": got["vram_why"],
                "vram_within": _within_vram(o["vram_after"], o["vram_after_bound"], got["vram"], step),
                "speed_ratio": o["speed_ratio"],
                "copy_gbps_predicted": speed_pred,
                "copy_gbps_measured": got["copy_gbps"],
                "evidence": [f"{e['path']}: {e['item']}" for e in o["evidence"]],
                "status": got["status"],
            }
        )
    return row


def _b(v) -> str:
    return "-" if v is None else f"{v / MIB:.1f} MiB"


def _g(v) -> str:
    return "-" if v is None else f"{v:.2f} GB/s"


def _w(v) -> str:
    return "-" if v is None else ("yes" if v else "NO")


def markdown(rows: list[dict], extra: dict) -> str:
    lines = ["# Predicted against measured (results/advice/scripts/compare.py)", ""]
    for r in rows:
        b = r["as_is"]
        lines += [f"## {r['program']}", ""]
        lines.append(
            f"As is: peak {_b(b['peak_bytes'])} pinned, device cost {_b(b['vram'])}"
            + (f" ({b['vram_why']})" if b["vram_why"] else "")
            + f", copy {_g(b['copy_gbps'])}, blocks asked {[_b(x) for x in b.get('blocks', [])][:4]},"
            f" program {b['status']}."
        )
        if r["advice"] is None:
            lines += ["", r.get("advice_missing", "no advice"), ""]
            continue
        a = r["advice"]
        lines += [
            "",
            f"Advice: **{a['verdict']}** (threshold: {a['threshold']}).",
            f"Cost now: predicted {_b(a['vram_predicted'])}, bound {_b(a['vram_bound'])}, measured {_b(b['vram'])}:"
            f" within {_w(a['vram_within'])}.",
            "",
            "| option (mode) | pinned predicted | pinned measured | within | VRAM predicted (bound)"
            " | VRAM measured | within | copy predicted | copy measured | rests on |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for o in r["options"]:
            if not o["applies"]:
                lines.append(f"| {o['option']} ({o['mode']}) | does not apply | | | | | | | | |")
                continue
            lines.append(
                f"| {o['option']} ({o['mode']}) | {_b(o['bytes_predicted'])} | {_b(o['bytes_measured'])} |"
                f" {_w(o['bytes_within'])} | {_b(o['vram_predicted'])} ({_b(o['vram_bound'])}) |"
                f" {_b(o['vram_measured'])}{' (' + o['vram_why'] + ')' if o['vram_why'] else ''} |"
                f" {_w(o['vram_within'])} |"
                f" {_g(o['copy_gbps_predicted'])} | {_g(o['copy_gbps_measured'])} |"
                f" {'; '.join(o['evidence']) or 'missing: ' + ', '.join(o['missing'])} |"
            )
        lines.append("")
    if extra:
        lines += ["## PyTorch's pinned_use_cuda_host_register:True (train_loop as is)", ""]
        lines.append(
            f"Entry points {extra.get('apis')}, sizes asked {[_b(x) for x in extra.get('blocks', [])][:4]}, peak"
            f" {_b(extra.get('peak_bytes'))}: "
            + {True: "the rounding stays.", False: "the rounding is gone.", None: "no batch_bytes noted: cannot tell."}[
                extra.get("rounded")
            ]
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: compare.py OUT", file=sys.stderr)
        return 2
    out = Path(argv[1])
    rows = [compare_program(out, p) for p in PROGRAMS]
    extra = {}
    hostreg = _load(out / "train_loop-hostreg.trace.json")
    if hostreg is not None:
        m = measured(hostreg)
        batch = _notes(hostreg).get("batch_bytes") or 0
        big = [b for b in m["blocks"] if b >= MIB]
        m["rounded"] = (all(b > batch for b in big) and bool(big)) if batch > 0 else None
        extra = m
    (out / "comparison.json").write_text(json.dumps({"programs": rows, "hostreg": extra}, indent=1) + "\n")
    text = markdown(rows, extra)
    (out / "comparison.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
