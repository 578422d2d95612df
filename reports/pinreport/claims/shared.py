"""Claim 12 (shared vs private at equal process count): on WDDM CONFIRMED when shared costs at
least private minus one granule somewhere, REFUTED when shared is cheaper everywhere."""

from dataclasses import dataclass
from typing import Any

from pinreport.analysis import kind_results
from pinreport.base.units import format_bytes
from pinreport.claims.claim import CONFIRMED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData


@dataclass(frozen=True)
class Pairs:
    data: ClaimData
    key: str | None
    # (scenario, processes) -> variant -> (device cost, granule), where both variants ran
    both: dict[tuple[str, Any], dict[str, tuple[float, float]]]


class Shared(Claim):
    n = "12"
    title = "Sharing pinned memory between processes is not necessarily cheaper on WDDM."

    def gather(self, data: ClaimData) -> Pairs:
        runs = data.ok_runs("shared")
        key = kind_results.dedicated_key(runs, "shared.device_cost.")
        pairs: dict[tuple[str, Any], dict[str, tuple[float, float]]] = {}
        if key is not None:
            metric = f"shared.device_cost.{key}"
            for r in runs:
                params = r.plan.params
                value = kind_results.median_of(r, metric)
                if value is not None:
                    slot = pairs.setdefault((r.plan.scenario, params.get("processes")), {})
                    slot[params.shown("variant")] = (value, kind_results.granule_of(data.current, r, metric, key))
        return Pairs(data, key, {k: v for k, v in pairs.items() if "shared" in v and "private" in v})

    def _compared(self, seen: Pairs) -> tuple[str, int]:
        """(the evidence, at how many process counts shared is not cheaper)."""
        texts, not_cheaper = [], 0
        for (_, processes), v in sorted(seen.both.items(), key=lambda kv: str(kv[0])):
            (sv, sg), (pv, pg) = v["shared"], v["private"]
            texts.append(f"P={processes}: shared {format_bytes(sv)} vs private {format_bytes(pv)}")
            if sv >= pv - max(sg, pg):
                not_cheaper += 1
        return f"device cost on {seen.key}: " + "; ".join(texts), not_cheaper

    def applies(self, seen: Pairs) -> str | None:
        if not seen.both:
            return "no shared and private runs at the same process count"
        if not seen.data.wddm:
            return f"a WDDM claim; this data is {seen.data.platform}: {self._compared(seen)[0]}"
        return None

    def judge(self, seen: Pairs) -> Finding:
        evidence, not_cheaper = self._compared(seen)
        if not_cheaper:
            return CONFIRMED, f"shared is not cheaper at {not_cheaper} of {len(seen.both)} process count(s): {evidence}"
        return REFUTED, f"shared is cheaper by more than one granule everywhere: {evidence}"
