"""The brief's 14 claims (docs: /work/shared/seed/brief.md, "Experiments") judged on this data.

Each claim gets CONFIRMED, REFUTED or NOT TESTED HERE for the platform of the current results
file, with the evidence in one sentence. Only what the data supports is judged: Windows-only
claims are NOT TESTED HERE on other data (their evidence still names the numbers), and a claim
whose scenario kind has no ok run here is NOT TESTED HERE. Nothing is hard-coded as expected.

Claims on the scenario kinds (docs/kinds.md), each on the dedicated key the report charts
(cudaMemGetInfo first), with one granule (the metric's, else the null control's) of tolerance:
  3  multi_gpu: every one of the N devices pays (cost.after_first_use.nvml.<d>.used beyond one
     granule): CONFIRMED; some device pays and another does not: REFUTED; none pays: NOT TESTED.
  8  churn.creep and fragmentation.largest_loss: creep beyond one granule in some churn run, and
     a largest-block loss beyond one bisection resolution in some fragmentation run: CONFIRMED
     when both parts are measured and seen; a measured part not seen: REFUTED; else NOT TESTED.
  10 the reservation rule, capacity.loss verdicts first (dedicated memory lost), else the probe
     verdicts; judged on WDDM only.
  11 workers (per_process): the per-worker context and pinned costs both beyond one granule
     and flat in N (spread within max(granule, LINEAR_TOLERANCE of the largest)): CONFIRMED; a
     part within one granule of 0, or not flat: REFUTED.
  12 shared vs private at equal process count: on WDDM CONFIRMED when shared costs at least
     private minus one granule somewhere, REFUTED when shared is cheaper everywhere.
  14 on Windows: capacity.loss / pinned within the 15-20% headroom for every capacity run and
     claim 3 not refuted: CONFIRMED; a loss ratio beyond 20% (beyond its uncertainty): REFUTED.

Claims beyond the brief (FURTHER_CLAIMS, judge_further(): the same register, its own rows):
  issue 20 "largest pinnable size tracks free VRAM", per file (platform and driver model), on
     the sweep kind's max_pinnable runs with free_target; the rule, and the Windows cap reported
     beside it (never judged), are in pinnable.py. Its inconclusive outcome is NOT TESTED HERE
     with "inconclusive: " and the reason, as claim 10's.

"Near 0" (claim 1, Linux and TCC) is judged from held-cost medians against the probe granule:
every cost within one granule is zero within resolution; a cost above the granule but below
NEAR_ZERO of the pinned bytes (a tenth of the rule's 10% lower edge) is near 0, not exactly 0.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pinreport import kinds, pinnable
from pinreport.disturbance import disturbed_keys, disturbed_metrics
from pinreport.environment import driver_models
from pinreport.rule import (
    CAPACITY_LOSS,
    CONTROL_API,
    RULE_KINDS,
    RuleVerdict,
    capacity_resolution,
    held_costs,
    is_judged_key,
    pinned_bytes,
)
from pinreport.units import format_bytes

CONFIRMED, REFUTED, NOT_TESTED = "CONFIRMED", "REFUTED", "NOT TESTED HERE"
NEAR_ZERO = 0.01
WINDOWS_MODELS = {"WDDM", "TCC", "MCDM"}
MB = 1024**2
# Brief's table: pinned size (MB) -> claimed VRAM growth on WDDM (MB).
CLAIMED_WDDM = {64: (10, 20), 256: (30, 60), 512: (50, 100), 1024: (100, 200), 4096: (400, 800)}
LINEAR_TOLERANCE = 0.10  # claim 11: per-worker costs this close (relative) count as flat in N
HEADROOM = 0.20  # claim 14: the advice's upper headroom


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
        disturbed = disturbed_keys(run)  # never judged (disturbance.py)
        for key, cost in sorted(held_costs(run).items()):
            if is_judged_key(key) and key not in disturbed:
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


def _ok_runs(doc: dict[str, Any], kind: str, pinned_only: bool = True) -> list[dict[str, Any]]:
    """The ok runs of a kind that no other process disturbed (a run with a disturbed probe
    gives no evidence for a claim: disturbance.py)."""
    return [
        r
        for r in kinds.runs_of(doc, kind)
        if r.get("status") == "ok"
        and not (pinned_only and r.get("plan", {}).get("api") == CONTROL_API)
        and not disturbed_metrics(r)
    ]


def _key_metric(runs: list[dict[str, Any]], prefix: str) -> str | None:
    names = {m for r in runs for m in r.get("metrics", {})}
    return kinds.dedicated_headline(kinds.keys_for(prefix + "<key>", names))


def multi_gpu_claim(doc: dict[str, Any]) -> tuple[str, str]:
    """Claim 3 (module docstring)."""
    runs = [r for r in _ok_runs(doc, "multi_gpu") if r["plan"].get("gpus", 1) > 1]
    if not runs:
        return NOT_TESTED, "no ok multi_gpu run on more than one GPU"
    paying, missing, checked = [], [], 0
    for run in runs:
        n = int(run["plan"]["gpus"])
        costs = []
        for d in range(n):
            metric = f"cost.after_first_use.nvml.{d}.used"
            value = kinds.median_of(run, metric)
            if value is None:
                break
            costs.append((d, value, kinds.granule_of(doc, run, metric, f"nvml.{d}.used")))
        if len(costs) != n:
            continue
        checked += 1
        pays = [d for d, v, g in costs if v > g]
        total = kinds.median_of(run, "multi_gpu.cost_sum.nvml.used")
        total_text = f", sum {format_bytes(total)}" if total is not None else ""
        text = f"{run['id']}: " + ", ".join(f"GPU {d} {format_bytes(v)}" for d, v, _ in costs) + total_text
        if pays and len(pays) < n:
            missing.append(text)
        elif pays:
            paying.append(text)
    if not checked:
        return NOT_TESTED, f"{len(runs)} multi_gpu run(s) without a per-device NVML cost on every device"
    if missing:
        return REFUTED, f"not every GPU pays: {missing[0]}"
    if paying:
        return CONFIRMED, f"every GPU pays in {len(paying)} of {checked} run(s), e.g. {paying[0]}"
    return NOT_TESTED, f"no GPU pays beyond one granule in {checked} multi_gpu run(s): nothing to multiply"


def churn_claim(doc: dict[str, Any]) -> tuple[str, str]:
    """Claim 8 (module docstring)."""
    parts: list[tuple[str, bool, str]] = []  # (part, seen, evidence)
    churn = _ok_runs(doc, "churn")
    key = _key_metric(churn, "churn.creep.")
    if key is not None:
        creeps = []
        for run in churn:
            metric = f"churn.creep.{key}"
            value = kinds.median_of(run, metric)
            if value is not None:
                creeps.append((run["id"], value, kinds.granule_of(doc, run, metric, key)))
        if creeps:
            worst = max(creeps, key=lambda c: c[1] - c[2])
            seen = worst[1] > worst[2]
            parts.append(("creep", seen, f"largest creep {format_bytes(worst[1])} on {key} ({worst[0]})"))
    frag = []
    for run in _ok_runs(doc, "fragmentation"):
        value = kinds.median_of(run, "fragmentation.largest_loss")
        if value is not None:
            frag.append((run["id"], value, float(capacity_resolution(run["plan"]))))
    if frag:
        worst = max(frag, key=lambda f: f[1] - f[2])
        seen = worst[1] > worst[2]
        parts.append(("fragmentation", seen, f"largest block loss {format_bytes(worst[1])} ({worst[0]})"))
    if not parts:
        return NOT_TESTED, "no ok churn or fragmentation run with its metrics"
    evidence = "; ".join(f"{p}: {'seen' if s else 'not seen'}, {e}" for p, s, e in parts)
    if any(not s for _, s, _ in parts):
        return REFUTED, evidence
    if len(parts) == 2:
        return CONFIRMED, evidence
    missing = "fragmentation" if parts[0][0] == "creep" else "creep (churn)"
    return NOT_TESTED, f"{evidence}; {missing} not measured"


def workers_claim(doc: dict[str, Any]) -> tuple[str, str]:
    """Claim 11 (module docstring)."""
    runs = [
        r
        for r in _ok_runs(doc, "workers")
        if (r["plan"].get("params") or {}).get("variant", "per_process") == "per_process"
        and isinstance((r["plan"].get("params") or {}).get("workers"), int)
        and r["plan"]["params"]["workers"] > 0
    ]
    key = _key_metric(runs, "workers.context_per_worker.")
    if key is None:
        return NOT_TESTED, "no ok per_process workers run with N > 0"
    texts, problems = [], []
    for part in ("context", "pinned"):
        metric = f"workers.{part}_per_worker.{key}"
        points = [
            (r["plan"]["params"]["workers"], kinds.median_of(r, metric), kinds.granule_of(doc, r, metric, key))
            for r in runs
        ]
        points = sorted((n, v, g) for n, v, g in points if v is not None)
        if not points:
            problems.append(f"{part} per worker not measured")
            continue
        values = [v for _, v, _ in points]
        g = max(g for _, _, g in points)
        texts.append(f"{part} per worker " + ", ".join(f"N={n}: {format_bytes(v)}" for n, v, _ in points))
        if max(abs(v) for v in values) <= g:
            problems.append(f"{part} per worker within one granule of 0")
        elif max(values) - min(values) > max(g, LINEAR_TOLERANCE * max(abs(v) for v in values)):
            problems.append(f"{part} per worker changes with N (not linear)")
    evidence = f"on {key}: " + "; ".join(texts)
    if any("not measured" in p for p in problems):
        return NOT_TESTED, f"{evidence}; " + "; ".join(problems)
    if problems:
        return REFUTED, f"{'; '.join(problems)}: {evidence}"
    return CONFIRMED, f"both per-worker costs flat in N: {evidence}"


def shared_claim(doc: dict[str, Any], wddm: bool, platform: str) -> tuple[str, str]:
    """Claim 12 (module docstring)."""
    runs = _ok_runs(doc, "shared")
    key = _key_metric(runs, "shared.device_cost.")
    pairs: dict[tuple[str, Any], dict[str, tuple[float, float]]] = {}
    if key is not None:
        metric = f"shared.device_cost.{key}"
        for r in runs:
            params = r["plan"].get("params") or {}
            value = kinds.median_of(r, metric)
            if value is not None:
                slot = pairs.setdefault((r["plan"]["scenario"], params.get("processes")), {})
                slot[str(params.get("variant"))] = (value, kinds.granule_of(doc, r, metric, key))
    both = {k: v for k, v in pairs.items() if "shared" in v and "private" in v}
    if not both:
        return NOT_TESTED, "no shared and private runs at the same process count"
    texts, not_cheaper = [], 0
    for (_, processes), v in sorted(both.items(), key=lambda kv: str(kv[0])):
        (sv, sg), (pv, pg) = v["shared"], v["private"]
        texts.append(f"P={processes}: shared {format_bytes(sv)} vs private {format_bytes(pv)}")
        if sv >= pv - max(sg, pg):
            not_cheaper += 1
    evidence = f"device cost on {key}: " + "; ".join(texts)
    if not wddm:
        return NOT_TESTED, f"a WDDM claim; this data is {platform}: {evidence}"
    if not_cheaper:
        return CONFIRMED, f"shared is not cheaper at {not_cheaper} of {len(both)} process count(s): {evidence}"
    return REFUTED, f"shared is cheaper by more than one granule everywhere: {evidence}"


def capacity_ratios(report) -> list[Any]:
    """The rule's capacity.loss results that were judged (rule.capacity_result)."""
    return [r for r in report.rule if r.key == CAPACITY_LOSS and r.verdict != RuleVerdict.NOT_JUDGED]


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
        return multi_gpu_claim(doc)

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
        # The capacity loss is the most direct evidence (dedicated memory an application can no
        # longer allocate); probe costs only where no capacity run was judged.
        capacity = capacity_ratios(report)
        judged = capacity or [r for r in report.rule if r.verdict != RuleVerdict.NOT_JUDGED]
        counts: dict[str, int] = {}
        for r in judged:
            counts[str(r.verdict)] = counts.get(str(r.verdict), 0) + 1
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "no judged run"
        if capacity:
            worst = max(capacity, key=lambda r: r.ratio)
            summary = f"capacity.loss: {summary}, largest loss {worst.ratio:.3g} of the pinned bytes ({worst.run_id})"
        if not wddm:
            return NOT_TESTED, f"{not_windows}; the rule's verdicts on it: {summary}"
        if not judged:
            return NOT_TESTED, "no judged rule result"
        if counts.get("VIOLATION"):
            return REFUTED, f"rule verdicts: {summary}"
        if counts.get("OK") == len(judged):
            return CONFIRMED, f"rule verdicts: {summary}"
        return NOT_TESTED, f"inconclusive: {summary}"

    def c14() -> tuple[str, str]:
        capacity = capacity_ratios(report)
        if not capacity:
            return NOT_TESTED, "no judged capacity run (capacity.loss); the advice follows from claims 3 and 10"
        worst = max(capacity, key=lambda r: r.ratio)
        u = worst.uncertainty or 0.0
        text = f"largest capacity loss {worst.ratio:.3g} +- {u:.2g} of the pinned bytes ({worst.run_id})"
        if not windows:
            return NOT_TESTED, f"{not_windows}; {text}"
        if worst.ratio - u > HEADROOM:
            return REFUTED, f"{text}: beyond the {HEADROOM:.0%} headroom"
        if c3()[0] == REFUTED:
            return REFUTED, f"{text}, but not every GPU pays (claim 3): multiplying by the GPU count is wrong"
        if worst.ratio + u <= HEADROOM:
            return CONFIRMED, f"{text}: within the {HEADROOM:.0%} headroom"
        return NOT_TESTED, f"{text}: within its uncertainty of the {HEADROOM:.0%} edge"

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
            lambda: churn_claim(doc),
        ),
        (
            "Driver mode: TCC avoids the cost that WDDM pays.",
            fixed(f"needs WDDM and TCC runs of one card; this data is {platform}"),
        ),
        ("Reservation rule: reserving 10-20% of the pinned bytes is enough (per driver release).", c10),
        (
            "Workers: each process pays its own pinned cost and CUDA context, linear in workers.",
            lambda: workers_claim(doc),
        ),
        (
            "Sharing pinned memory between processes is not necessarily cheaper on WDDM.",
            lambda: shared_claim(doc, wddm, platform),
        ),
        (
            "Newer drivers (5xx+) reduce the overhead but do not remove it.",
            fixed(f"needs WDDM runs of several releases; this data is {platform}"),
        ),
        (
            "Advice: keep 15-20% VRAM headroom on Windows; multiply the overhead by the GPU count.",
            c14,
        ),
    ]
    out = []
    for i, (text, f) in enumerate(claims, 1):
        verdict, evidence = f()
        out.append({"n": str(i), "claim": text, "verdict": verdict, "evidence": evidence})
    return out


# --- claims beyond the brief ---------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One row of the register beyond the brief's 14: `applies` gives why it is NOT TESTED HERE
    on this file, or None; `judge` gives (verdict, evidence); `beside` what is reported next to
    the verdict and never judged ("" for nothing)."""

    n: str
    title: str
    applies: Callable[[dict[str, Any]], str | None]
    judge: Callable[[dict[str, Any]], tuple[str, str]]
    beside: Callable[[dict[str, Any]], str] = lambda doc: ""

    def row(self, doc: dict[str, Any]) -> dict[str, str]:
        why_not = self.applies(doc)
        verdict, evidence = (NOT_TESTED, why_not) if why_not is not None else self.judge(doc)
        return {"n": self.n, "claim": self.title, "verdict": verdict, "evidence": evidence, "beside": self.beside(doc)}


_PINNABLE_VERDICT = {
    pinnable.Outcome.CONFIRMED: CONFIRMED,
    pinnable.Outcome.REFUTED: REFUTED,
    pinnable.Outcome.AMBIGUOUS: NOT_TESTED,
    pinnable.Outcome.NOT_TESTED: NOT_TESTED,
}


def pinnable_applies(doc: dict[str, Any]) -> str | None:
    """None when the file has an ok max_pinnable point with free_target (pinnable.collect)."""
    if pinnable.collect(doc):
        return None
    return pinnable.judge(doc).evidence


def pinnable_claim(doc: dict[str, Any]) -> tuple[str, str]:
    """Issue 20 (pinnable.judge): the verdict for this file's platform and driver model."""
    j = pinnable.judge(doc)
    evidence = f"on {pinnable.platform(doc)}: {j.evidence}"
    if j.outcome == pinnable.Outcome.AMBIGUOUS:
        evidence = f"inconclusive: {evidence}"
    return _PINNABLE_VERDICT[j.outcome], evidence


def windows_cap_text(doc: dict[str, Any]) -> str:
    """The Windows cap beside issue 20's verdict (pinnable.windows_cap): reported, never judged;
    on other platforms it says so before the numbers."""
    caps = pinnable.windows_caps(doc)
    if not caps:
        return "" if not pinnable.collect(doc) else "Windows cap: host RAM not recorded"
    text = "; ".join(c.describe() for c in caps)
    models = set(driver_models(doc.get("environment") or {}))
    if models & WINDOWS_MODELS:
        return f"Windows cap (reported, not judged): {text}"
    return f"Windows cap: not judged on {pinnable.platform(doc)}; here {text}"


FURTHER_CLAIMS = (
    Claim(
        "issue 20",
        "Max pinnable tracks free VRAM: the largest host buffer that pins follows the device memory "
        "left free (cudaMemGetInfo), slope near 1.",
        pinnable_applies,
        pinnable_claim,
        windows_cap_text,
    ),
)


def judge_further(doc: dict[str, Any]) -> list[dict[str, str]]:
    """[{n, claim, verdict, evidence, beside}] for FURTHER_CLAIMS on the results file `doc`."""
    return [c.row(doc) for c in FURTHER_CLAIMS]
