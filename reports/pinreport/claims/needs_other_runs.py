"""Claims that one results file cannot judge: 9 (TCC against WDDM on one card) and 13 (newer
drivers over several releases) need runs of another driver model or release."""

from pinreport.claims.claim import NOT_TESTED, Claim, Finding
from pinreport.claims.evidence import ClaimData


class DriverMode(Claim):
    n = "9"
    title = "Driver mode: TCC avoids the cost that WDDM pays."

    def applies(self, seen: ClaimData) -> str | None:
        return f"needs WDDM and TCC runs of one card; this data is {seen.platform}"

    def judge(self, seen: ClaimData) -> Finding:
        return NOT_TESTED, "never reached: applies() always says why not"


class NewerDrivers(Claim):
    n = "13"
    title = "Newer drivers (5xx+) reduce the overhead but do not remove it."

    def applies(self, seen: ClaimData) -> str | None:
        return f"needs WDDM runs of several releases; this data is {seen.platform}"

    def judge(self, seen: ClaimData) -> Finding:
        return NOT_TESTED, "never reached: applies() always says why not"
