"""Claim 8 (churn and fragmentation): churn.creep beyond one granule in some churn run, and a
fragmentation.largest_loss beyond one bisection resolution in some fragmentation run: CONFIRMED
when both parts are measured and seen; a measured part not seen: REFUTED; else NOT TESTED HERE."""

from pinreport.analysis import kind_results
from pinreport.analysis.rule import capacity_resolution
from pinreport.base.units import format_bytes
from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData

Part = tuple[str, bool, str]  # (part, seen, evidence)


class Churn(Claim):
    n = "8"
    title = "Churn: repeated pin/unpin creeps upward (lazy reclaim) and fragments VRAM."

    def gather(self, data: ClaimData) -> list[Part]:
        """The measured parts, creep first."""
        parts: list[Part] = []
        churn = data.ok_runs("churn")
        key = kind_results.dedicated_key(churn, "churn.creep.")
        if key is not None:
            creeps = []
            for run in churn:
                metric = f"churn.creep.{key}"
                value = kind_results.median_of(run, metric)
                if value is not None:
                    creeps.append((run.id, value, kind_results.granule_of(data.current, run, metric, key)))
            if creeps:
                worst = max(creeps, key=lambda c: c[1] - c[2])
                seen = worst[1] > worst[2]
                parts.append(("creep", seen, f"largest creep {format_bytes(worst[1])} on {key} ({worst[0]})"))
        frag = []
        for run in data.ok_runs("fragmentation"):
            value = kind_results.median_of(run, "fragmentation.largest_loss")
            if value is not None:
                frag.append((run.id, value, float(capacity_resolution(run.plan))))
        if frag:
            worst = max(frag, key=lambda f: f[1] - f[2])
            seen = worst[1] > worst[2]
            parts.append(("fragmentation", seen, f"largest block loss {format_bytes(worst[1])} ({worst[0]})"))
        return parts

    def applies(self, seen: list[Part]) -> str | None:
        return None if seen else "no ok churn or fragmentation run with its metrics"

    def judge(self, seen: list[Part]) -> Finding:
        evidence = "; ".join(f"{p}: {'seen' if s else 'not seen'}, {e}" for p, s, e in seen)
        if any(not s for _, s, _ in seen):
            return REFUTED, evidence
        if len(seen) == 2:
            return CONFIRMED, evidence
        missing = "fragmentation" if seen[0][0] == "creep" else "creep (churn)"
        return NOT_TESTED, f"{evidence}; {missing} not measured"
