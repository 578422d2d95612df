"""Claims on the reservation rule (rule.py): 10 (reserving 10-20% of the pinned bytes is
enough) and 14 (keep 15-20% headroom on Windows, multiplied by the GPU count).

Claim 10 reads the capacity.loss verdicts first (dedicated memory an application can no longer
allocate), else the probe verdicts; judged on WDDM only. Claim 14, on Windows: capacity.loss /
pinned within HEADROOM for every capacity run and claim 3 not refuted: CONFIRMED; a loss ratio
beyond HEADROOM (beyond its uncertainty): REFUTED.
"""

from dataclasses import dataclass

from pinreport.analysis.rule import RuleResult, RuleVerdict
from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData
from pinreport.claims.multi_gpu import MultiGpu

HEADROOM = 0.20  # claim 14: the advice's upper headroom


@dataclass(frozen=True)
class RuleVerdicts:
    data: ClaimData
    judged: list[RuleResult]  # the capacity.loss results, else every judged probe result
    counts: dict[str, int]  # verdict -> results
    summary: str


class ReservationRule(Claim):
    n = "10"
    title = "Reservation rule: reserving 10-20% of the pinned bytes is enough (per driver release)."

    def gather(self, data: ClaimData) -> RuleVerdicts:
        capacity = data.capacity_ratios
        judged = capacity or [r for r in data.rule if r.verdict != RuleVerdict.NOT_JUDGED]
        counts: dict[str, int] = {}
        for r in judged:
            counts[str(r.verdict)] = counts.get(str(r.verdict), 0) + 1
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "no judged run"
        if capacity:
            worst = max(capacity, key=lambda r: r.ratio)
            summary = f"capacity.loss: {summary}, largest loss {worst.ratio:.3g} of the pinned bytes ({worst.run_id})"
        return RuleVerdicts(data, judged, counts, summary)

    def applies(self, seen: RuleVerdicts) -> str | None:
        if not seen.data.wddm:
            return f"{seen.data.not_windows}; the rule's verdicts on it: {seen.summary}"
        return None if seen.judged else "no judged rule result"

    def judge(self, seen: RuleVerdicts) -> Finding:
        if seen.counts.get("VIOLATION"):
            return REFUTED, f"rule verdicts: {seen.summary}"
        if seen.counts.get("OK") == len(seen.judged):
            return CONFIRMED, f"rule verdicts: {seen.summary}"
        return NOT_TESTED, f"inconclusive: {seen.summary}"


@dataclass(frozen=True)
class LargestLoss:
    data: ClaimData
    worst: RuleResult | None  # the judged capacity run with the largest loss ratio
    text: str


class Headroom(Claim):
    n = "14"
    title = "Advice: keep 15-20% VRAM headroom on Windows; multiply the overhead by the GPU count."

    def gather(self, data: ClaimData) -> LargestLoss:
        if not data.capacity_ratios:
            return LargestLoss(data, None, "")
        worst = max(data.capacity_ratios, key=lambda r: r.ratio)
        u = worst.uncertainty or 0.0
        text = f"largest capacity loss {worst.ratio:.3g} +- {u:.2g} of the pinned bytes ({worst.run_id})"
        return LargestLoss(data, worst, text)

    def applies(self, seen: LargestLoss) -> str | None:
        if seen.worst is None:
            return "no judged capacity run (capacity.loss); the advice follows from claims 3 and 10"
        return None if seen.data.windows else f"{seen.data.not_windows}; {seen.text}"

    def judge(self, seen: LargestLoss) -> Finding:
        assert seen.worst is not None  # applies() said so
        ratio, u = seen.worst.ratio, seen.worst.uncertainty or 0.0
        if ratio - u > HEADROOM:
            return REFUTED, f"{seen.text}: beyond the {HEADROOM:.0%} headroom"
        if MultiGpu().finding(seen.data)[0] == REFUTED:
            return REFUTED, f"{seen.text}, but not every GPU pays (claim 3): multiplying by the GPU count is wrong"
        if ratio + u <= HEADROOM:
            return CONFIRMED, f"{seen.text}: within the {HEADROOM:.0%} headroom"
        return NOT_TESTED, f"{seen.text}: within its uncertainty of the {HEADROOM:.0%} edge"
