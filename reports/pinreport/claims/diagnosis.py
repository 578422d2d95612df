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
        cc = seen.current.controls.named("cross_check")
        difference = cc.quantity("difference") if cc is not None else None
        shown = (
            f"; here the cross check says {cc.verdict} (difference {format_bytes(difference)})"
            if cc is not None and difference is not None
            else ""
        )
        return seen.not_windows + shown

    def judge(self, seen: ClaimData) -> Finding:
        return NOT_TESTED, "compare the NVML and cudaMemGetInfo lines of the cost charts"
