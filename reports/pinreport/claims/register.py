"""The register of claims in the report's order: the brief's 14 (BRIEF) and those beyond it
(FURTHER, a table of their own with what is reported beside each verdict)."""

from pinreport.claims.bandwidth import PinnedTransfers, RingBuffer
from pinreport.claims.churn import Churn
from pinreport.claims.claim import Claim, ClaimRow
from pinreport.claims.diagnosis import Diagnosis
from pinreport.claims.evidence import ClaimData
from pinreport.claims.held_cost import ApiVariants, MinimalRepro, SizeTable
from pinreport.claims.max_pinnable import MaxPinnableTracksFreeVram
from pinreport.claims.multi_gpu import MultiGpu
from pinreport.claims.needs_other_runs import DriverMode, NewerDrivers
from pinreport.claims.reservation import Headroom, ReservationRule
from pinreport.claims.shared import Shared
from pinreport.claims.workers import Workers

BRIEF: tuple[Claim, ...] = (
    MinimalRepro(),
    SizeTable(),
    MultiGpu(),
    Diagnosis(),
    ApiVariants(),
    PinnedTransfers(),
    RingBuffer(),
    Churn(),
    DriverMode(),
    ReservationRule(),
    Workers(),
    Shared(),
    NewerDrivers(),
    Headroom(),
)
FURTHER: tuple[Claim, ...] = (MaxPinnableTracksFreeVram(),)


def brief_rows(data: ClaimData) -> list[ClaimRow]:
    """The rows of the 14 claims under test (their table shows no beside column: none of them
    reports one)."""
    return [c.row(data) for c in BRIEF]


def further_rows(data: ClaimData) -> list[ClaimRow]:
    """The rows of the claims beyond those 14."""
    return [c.row(data) for c in FURTHER]
