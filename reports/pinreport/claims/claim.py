"""A claim as an object (as an nvbandwidth test case: filter, then run): gather() reads what
the claim needs from the data at hand once, applies() says why it is NOT TESTED HERE (None
when it applies), judge() gives the verdict and its evidence, beside() what is reported next
to the verdict and never judged."""

from dataclasses import dataclass
from typing import Any

from pinreport.claims.evidence import ClaimData

CONFIRMED, REFUTED, NOT_TESTED = "CONFIRMED", "REFUTED", "NOT TESTED HERE"
Finding = tuple[str, str]  # (verdict, evidence in one sentence)


@dataclass(frozen=True)
class ClaimRow:
    """One claim's line of the report: its number, its words, the verdict and its evidence."""

    n: str
    claim: str
    verdict: str  # CONFIRMED, REFUTED or NOT TESTED HERE
    evidence: str
    beside: str  # what is reported next to the verdict and never judged ("" for none)


class Claim:
    n = ""  # the register's number: "1".."14" for the brief's, words for one beyond it
    title = ""

    def gather(self, data: ClaimData) -> Any:
        """What applies(), judge() and beside() read, computed once (the data itself by default)."""
        return data

    def applies(self, seen: Any) -> str | None:
        """None when the claim can be judged here, else why not (with the numbers that were seen)."""
        return None

    def judge(self, seen: Any) -> Finding:
        """The verdict where the claim applies; NOT TESTED HERE when the evidence is inconclusive."""
        raise NotImplementedError

    def beside(self, seen: Any) -> str:
        return ""

    def finding(self, data: ClaimData) -> Finding:
        return self._finding(self.gather(data))

    def row(self, data: ClaimData) -> ClaimRow:
        seen = self.gather(data)
        verdict, evidence = self._finding(seen)
        # "via WSL2 ..." where the driver was reached so
        return ClaimRow(self.n, self.title, verdict, data.via + evidence, self.beside(seen))

    def _finding(self, seen: Any) -> Finding:
        why_not = self.applies(seen)
        return (NOT_TESTED, why_not) if why_not is not None else self.judge(seen)
