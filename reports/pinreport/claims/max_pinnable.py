"""Beyond the brief: "the largest pinnable size tracks free VRAM", per file (platform
and driver model), on the sweep kind's max_pinnable runs with free_target. The rule, and the
Windows cap reported beside it (never judged), are in pinnable_fit.py; the file's points are
collected and judged once. Its inconclusive outcome is NOT TESTED HERE with "inconclusive: "
and the reason, as claim 10's."""

from dataclasses import dataclass

from pinreport.analysis import pinnable_fit
from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData

_VERDICT = {
    pinnable_fit.Outcome.CONFIRMED: CONFIRMED,
    pinnable_fit.Outcome.REFUTED: REFUTED,
    pinnable_fit.Outcome.AMBIGUOUS: NOT_TESTED,
    pinnable_fit.Outcome.NOT_TESTED: NOT_TESTED,
}


@dataclass(frozen=True)
class PinnableEvidence:
    data: ClaimData
    by_api: dict[str, list[pinnable_fit.Point]]  # pinnable_fit.collect_runs of the current file
    judgement: pinnable_fit.Judgement
    caps: list[pinnable_fit.WindowsCap]


class MaxPinnableTracksFreeVram(Claim):
    n = "beyond the brief: largest pinnable size"
    title = (
        "Max pinnable tracks free VRAM: the largest host buffer that pins follows the device memory "
        "left free (cudaMemGetInfo), slope near 1."
    )

    def gather(self, data: ClaimData) -> PinnableEvidence:
        by_api = pinnable_fit.collect_runs(data.current.runs)
        judgement = pinnable_fit.judge(data.current.runs, by_api)
        return PinnableEvidence(data, by_api, judgement, pinnable_fit.windows_caps(by_api))

    def applies(self, seen: PinnableEvidence) -> str | None:
        """None when the file has an ok max_pinnable point with free_target."""
        return None if seen.by_api else seen.judgement.evidence

    def judge(self, seen: PinnableEvidence) -> Finding:
        j = seen.judgement
        evidence = f"on {pinnable_fit.platform(seen.data.current.environment)}: {j.evidence}"
        if j.outcome == pinnable_fit.Outcome.AMBIGUOUS:
            evidence = f"inconclusive: {evidence}"
        return _VERDICT[j.outcome], evidence

    def beside(self, seen: PinnableEvidence) -> str:
        """The Windows cap: reported, never judged; on other platforms it says so before the numbers."""
        if not seen.caps:
            return "" if not seen.by_api else "Windows cap: host RAM not recorded"
        text = "; ".join(c.describe() for c in seen.caps)
        if seen.data.windows:
            return f"Windows cap (reported, not judged): {text}"
        return f"Windows cap: not judged on {pinnable_fit.platform(seen.data.current.environment)}; here {text}"
