"""Claims on the held cost of the rule kinds' pinned runs: 1 (minimal repro), 2 (the WDDM size
table), 5 (every pinned variant pays, the pageable control does not).

"Near 0" (claim 1, Linux and TCC) is judged from held-cost medians against the probe granule:
every cost within one granule is zero within resolution; a cost above the granule but below
NEAR_ZERO of the pinned bytes (a tenth of the rule's 10% lower edge) is near 0, not exactly 0.
On WDDM claim 1 is CONFIRMED when some held cost exceeds one granule. Claim 2 checks every cost
at a size of CLAIMED_WDDM against its range, one granule of tolerance each side; claim 5 is
claim 1's verdict on WDDM, with the pageable control's distance from 0 beside it.
"""

from pinreport.base.units import format_bytes
from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData, Observation, observations

NEAR_ZERO = 0.01
MB = 1024**2
# Brief's table: pinned size (MB) -> claimed VRAM growth on WDDM (MB).
CLAIMED_WDDM = {64: (10, 20), 256: (30, 60), 512: (50, 100), 1024: (100, 200), 4096: (400, 800)}


def _near_zero(obs: list[Observation]) -> Finding:
    above = [o for o in obs if abs(o.cost) > o.granule]
    if not above:
        return CONFIRMED, f"all {len(obs)} held costs are within one granule of 0"
    worst = max(obs, key=lambda o: o.cost / o.pinned)
    ratio = worst.cost / worst.pinned
    where = f"{worst.run_id} on {worst.key}: {format_bytes(worst.cost)} ({ratio:.2%} of the pinned bytes)"
    if ratio < NEAR_ZERO:
        return (
            CONFIRMED,
            f"near 0 but not exactly 0: {len(above)} of {len(obs)} costs exceed the granule; worst {where}",
        )
    return REFUTED, f"worst {where}, above {NEAR_ZERO:.0%}"


class MinimalRepro(Claim):
    n = "1"
    title = "Minimal repro: pinned host memory costs GPU memory under WDDM; under TCC and on Linux it is near 0."

    def applies(self, seen: ClaimData) -> str | None:
        if not (seen.wddm or (seen.models and seen.models <= {"linux", "TCC"})):
            return f"driver model {seen.platform}"
        return None if seen.observations else "no ok pinned run here"

    def judge(self, seen: ClaimData) -> Finding:
        obs = seen.observations
        if not seen.wddm:
            return _near_zero(obs)
        above = [o for o in obs if o.cost > o.granule]
        if above:
            return CONFIRMED, f"{len(above)} of {len(obs)} held costs exceed one granule"
        return REFUTED, "every held cost is within one granule of 0"


class SizeTable(Claim):
    n = "2"
    title = "Size sweep: on WDDM 64 MB costs 10-20 MB ... 4 GB costs 400-800 MB (base + proportional part)."

    def applies(self, seen: ClaimData) -> str | None:
        return None if seen.wddm else f"the table is for WDDM; this data is {seen.platform}"

    def judge(self, seen: ClaimData) -> Finding:
        checked, outside = 0, []
        for o in seen.observations:
            row = CLAIMED_WDDM.get(o.pinned // MB) if o.pinned % MB == 0 else None
            if row is None:
                continue
            checked += 1
            if not (row[0] * MB - o.granule <= o.cost <= row[1] * MB + o.granule):
                outside.append(f"{o.run_id} {o.key}: {format_bytes(o.cost)}")
        if not checked:
            return NOT_TESTED, "none of the table's sizes was measured"
        if outside:
            return REFUTED, f"{len(outside)} of {checked} outside the claimed range, e.g. {outside[0]}"
        return CONFIRMED, f"all {checked} costs at the table's sizes inside the claimed ranges"


class ApiVariants(Claim):
    n = "5"
    title = "API variants: every pinned variant pays the cost; pageable memory (the control) does not."

    def gather(self, data: ClaimData) -> tuple[ClaimData, str]:
        """(the data, what the pageable control shows)."""
        control = observations(data.current, pageable=True)
        seen = ""
        if control:
            worst = max(abs(o.cost) - o.granule for o in control)
            seen = f"; the pageable control is {'within' if worst <= 0 else 'beyond'} one granule of 0 here"
        return data, seen

    def applies(self, seen: tuple[ClaimData, str]) -> str | None:
        data, control = seen
        return None if data.wddm else data.not_windows + control

    def judge(self, seen: tuple[ClaimData, str]) -> Finding:
        data, control = seen
        verdict, evidence = MinimalRepro().finding(data)
        return verdict, "pinned variants: " + evidence + control
