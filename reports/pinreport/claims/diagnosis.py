"""Claim 4 (diagnosis): on WDDM, NVML shows mapping overhead that cudaMemGetInfo does not. Read
from the cost charts' NVML and cudaMemGetInfo lines on Windows; elsewhere the cross check's
verdict is shown beside NOT TESTED HERE."""

from pinreport.base.units import format_bytes
from pinreport.claims.claim import NOT_TESTED, Claim, Finding
from pinreport.claims.evidence import ClaimData


class Diagnosis(Claim):
    n = "4"
    title = "Diagnosis: on WDDM nvidia-smi (NVML) shows mapping overhead that cudaMemGetInfo does not."

    def applies(self, seen: ClaimData) -> str | None:
        if seen.windows:
            return None
        cc = (seen.doc.get("controls") or {}).get("cross_check") or {}
        shown = (
            f"; here the cross check says {cc.get('verdict')} (difference {format_bytes(cc['difference'])})"
            if isinstance(cc.get("difference"), (int, float))
            else ""
        )
        return seen.not_windows + shown

    def judge(self, seen: ClaimData) -> Finding:
        return NOT_TESTED, "compare the NVML and cudaMemGetInfo lines of the cost charts"
