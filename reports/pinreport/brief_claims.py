"""The brief's 14 claims (docs: /work/shared/seed/brief.md, "Experiments") judged on this data.

Each claim gets CONFIRMED, REFUTED or NOT TESTED HERE for the platform of the current results
file, with the evidence in one sentence. Only what the data supports is judged: Windows-only
claims are NOT TESTED HERE on Linux data, and claims whose scenario kinds do not exist yet
(churn, workers, sharing) are NOT TESTED HERE everywhere. Nothing is hard-coded as expected.

"Near 0" (claim 1, Linux and TCC) is judged from held-cost medians against the probe granule:
every cost within one granule is zero within resolution; a cost above the granule but below
NEAR_ZERO of the pinned bytes (a tenth of the rule's 10% lower edge) is near 0, not exactly 0.
"""

from collections.abc import Callable
from typing import Any

from pinreport.environment import driver_models
from pinreport.rule import CONTROL_API, RULE_KINDS, RuleVerdict, held_costs, is_judged_key, pinned_bytes
from pinreport.units import format_bytes

CONFIRMED, REFUTED, NOT_TESTED = "CONFIRMED", "REFUTED", "NOT TESTED HERE"
NEAR_ZERO = 0.01
WINDOWS_MODELS = {"WDDM", "TCC", "MCDM"}
MB = 1024**2
# Brief's table: pinned size (MB) -> claimed VRAM growth on WDDM (MB).
CLAIMED_WDDM = {64: (10, 20), 256: (30, 60), 512: (50, 100), 1024: (100, 200), 4096: (400, 800)}


def _observations(doc: dict[str, Any], pageable: bool = False) -> list[tuple[str, str, float, int, float]]:
    """(run id, key, held cost, pinned bytes, granule) on dedicated keys of ok rule-kind runs;
    pinned runs, or the pageable control with pageable=True."""
    out = []
    for run in doc.get("runs", []):
        plan = run.get("plan", {})
        if run.get("status") != "ok" or plan.get("kind") not in RULE_KINDS:
            continue
        if (plan.get("api") == CONTROL_API) != pageable:
            continue
        for key, cost in sorted(held_costs(run).items()):
            if is_judged_key(key):
                out.append((run["id"], key, cost.median, pinned_bytes(plan), float(cost.granule or 0)))
    return out


def _near_zero(obs) -> tuple[str, str]:
    if not obs:
        return NOT_TESTED, "no ok pinned run here"
    above = [o for o in obs if abs(o[2]) > o[4]]
    if not above:
        return CONFIRMED, f"all {len(obs)} held costs are within one granule of 0"
    worst = max(obs, key=lambda o: o[2] / o[3])
    ratio = worst[2] / worst[3]
    where = f"{worst[0]} on {worst[1]}: {format_bytes(worst[2])} ({ratio:.2%} of the pinned bytes)"
    if ratio < NEAR_ZERO:
        return (
            CONFIRMED,
            f"near 0 but not exactly 0: {len(above)} of {len(obs)} costs exceed the granule; worst {where}",
        )
    return REFUTED, f"worst {where}, above {NEAR_ZERO:.0%}"


def _transfer(bench, kind: str, op: str, size: float) -> float | None:
    for r in bench.transfer:
        if r["kind"] == kind and r["op"] == op and r["bytes"] == size:
            return r["fraction"]
    return None


def judge(doc: dict[str, Any], report, bench) -> list[dict[str, str]]:
    """[{n, claim, verdict, evidence}] for the 14 claims, on the current results file `doc`,
    its CompareReport and the benchmark rows (html_report.BenchRows)."""
    models = set(driver_models(doc.get("environment") or {}))
    windows = bool(models & WINDOWS_MODELS)
    wddm = models == {"WDDM"}
    platform = ", ".join(sorted(models)) or "unknown"
    not_windows = f"a Windows claim; this data is {platform}"
    obs = _observations(doc)

    def c1() -> tuple[str, str]:
        if models <= {"linux", "TCC"} and models:
            return _near_zero(obs)
        if wddm:
            above = [o for o in obs if o[2] > o[4]]
            if not obs:
                return NOT_TESTED, "no ok pinned run here"
            return (
                (CONFIRMED, f"{len(above)} of {len(obs)} held costs exceed one granule")
                if above
                else (
                    REFUTED,
                    "every held cost is within one granule of 0",
                )
            )
        return NOT_TESTED, f"driver model {platform}"

    def c2() -> tuple[str, str]:
        if not wddm:
            return NOT_TESTED, f"the table is for WDDM; this data is {platform}"
        checked, outside = 0, []
        for run_id, key, cost, pinned, g in obs:
            row = CLAIMED_WDDM.get(pinned // MB) if pinned % MB == 0 else None
            if row is None:
                continue
            checked += 1
            if not (row[0] * MB - g <= cost <= row[1] * MB + g):
                outside.append(f"{run_id} {key}: {format_bytes(cost)}")
        if not checked:
            return NOT_TESTED, "none of the table's sizes was measured"
        if outside:
            return REFUTED, f"{len(outside)} of {checked} outside the claimed range, e.g. {outside[0]}"
        return CONFIRMED, f"all {checked} costs at the table's sizes inside the claimed ranges"

    def c3() -> tuple[str, str]:
        multi = [r for r in doc.get("runs", []) if r.get("plan", {}).get("gpus", 1) > 1 and r.get("status") == "ok"]
        if not multi:
            return NOT_TESTED, "no run on more than one GPU"
        return NOT_TESTED, f"{len(multi)} multi-GPU run(s); see the rule table (sum over devices), not judged here"

    def c4() -> tuple[str, str]:
        if windows:
            return NOT_TESTED, "compare the NVML and cudaMemGetInfo lines of the cost charts"
        cc = (doc.get("controls") or {}).get("cross_check") or {}
        seen = (
            f"; here the cross check says {cc.get('verdict')} (difference {format_bytes(cc['difference'])})"
            if isinstance(cc.get("difference"), (int, float))
            else ""
        )
        return NOT_TESTED, not_windows + seen

    def c5() -> tuple[str, str]:
        control = _observations(doc, pageable=True)
        seen = ""
        if control:
            worst = max(abs(o[2]) - o[4] for o in control)
            seen = f"; the pageable control is {'within' if worst <= 0 else 'beyond'} one granule of 0 here"
        if not wddm:
            return NOT_TESTED, not_windows + seen
        return c1()[0], "pinned variants: " + c1()[1] + seen

    def c6() -> tuple[str, str]:
        size = float(1024**3)
        out = []
        for op in ("h2d", "d2h"):
            p, q = _transfer(bench, "pinned", op, size), _transfer(bench, "pageable", op, size)
            if p and q:
                out.append((op, p / q))
        if not out:
            return NOT_TESTED, "no 1 GiB pinned and pageable transfer rows (--bench transfer_bench.json)"
        text = ", ".join(f"{op} {s:.1f}x" for op, s in out)
        inside = all(2 <= s <= 3 for _, s in out)
        return (CONFIRMED if inside else REFUTED), f"pinned over pageable at 1 GiB: {text} (claim: 2-3x)"

    def c7() -> tuple[str, str]:
        if not bench.staging:
            return NOT_TESTED, "no staging rows (--bench staging_bench.json)"
        out, worse = [], []
        for b in bench.baselines:
            if b["kind"] != "pageable":
                continue
            ring = [
                r for r in bench.staging if r["op"] == b["op"] and r["size"] == b["size"] and r["pinned"] <= 256 * MB
            ]
            if not ring:
                continue
            best = max(ring, key=lambda r: r["fraction"])
            out.append(f"{b['op']} {b['size']}: ring {best['fraction']:.2f} vs pageable {b['fraction']:.2f}")
            if best["fraction"] <= b["fraction"]:
                worse.append(out[-1])
        if not out:
            return NOT_TESTED, "no pageable baseline rows beside the ring rows"
        if worse:
            return REFUTED, "a ring of at most 256 MiB is not faster than pageable: " + worse[0]
        return CONFIRMED, "fraction of link, ring of at most 256 MiB pinned: " + "; ".join(out)

    def c10() -> tuple[str, str]:
        judged = [r for r in report.rule if r.verdict != RuleVerdict.NOT_JUDGED]
        counts: dict[str, int] = {}
        for r in judged:
            counts[str(r.verdict)] = counts.get(str(r.verdict), 0) + 1
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "no judged run"
        if not wddm:
            return NOT_TESTED, f"{not_windows}; the rule's verdicts on it: {summary}"
        if not judged:
            return NOT_TESTED, "no judged rule result"
        if counts.get("VIOLATION"):
            return REFUTED, f"rule verdicts: {summary}"
        if counts.get("OK") == len(judged):
            return CONFIRMED, f"rule verdicts: {summary}"
        return NOT_TESTED, f"inconclusive: {summary}"

    def fixed(why: str) -> Callable[[], tuple[str, str]]:
        return lambda: (NOT_TESTED, why)

    claims = [
        ("Minimal repro: pinned host memory costs GPU memory under WDDM; under TCC and on Linux it is near 0.", c1),
        ("Size sweep: on WDDM 64 MB costs 10-20 MB ... 4 GB costs 400-800 MB (base + proportional part).", c2),
        ("Multi-GPU: a pinned buffer used by N GPUs is mapped, and paid for, on every GPU.", c3),
        ("Diagnosis: on WDDM nvidia-smi (NVML) shows mapping overhead that cudaMemGetInfo does not.", c4),
        ("API variants: every pinned variant pays the cost; pageable memory (the control) does not.", c5),
        ("Don't pin: pinned transfers of about 1 GB are 2-3x faster than pageable ones.", c6),
        ("Ring buffer: a fixed pinned ring (e.g. 256 MB) for chunked transfers beats pageable copies.", c7),
        (
            "Churn: repeated pin/unpin creeps upward (lazy reclaim) and fragments VRAM.",
            fixed("no churn runs (the scenario kind does not exist yet)"),
        ),
        (
            "Driver mode: TCC avoids the cost that WDDM pays.",
            fixed(f"needs WDDM and TCC runs of one card; this data is {platform}"),
        ),
        ("Reservation rule: reserving 10-20% of the pinned bytes is enough (per driver release).", c10),
        (
            "Workers: each process pays its own pinned cost and CUDA context, linear in workers.",
            fixed("no worker runs (the scenario kind does not exist yet)"),
        ),
        (
            "Sharing pinned memory between processes is not necessarily cheaper on WDDM.",
            fixed("no sharing runs (the scenario kind does not exist yet)"),
        ),
        (
            "Newer drivers (5xx+) reduce the overhead but do not remove it.",
            fixed(f"needs WDDM runs of several releases; this data is {platform}"),
        ),
        (
            "Advice: keep 15-20% VRAM headroom on Windows; multiply the overhead by the GPU count.",
            fixed("advice; follows from claims 3 and 10"),
        ),
    ]
    out = []
    for i, (text, f) in enumerate(claims, 1):
        verdict, evidence = f()
        out.append({"n": str(i), "claim": text, "verdict": verdict, "evidence": evidence})
    return out
