"""Claims on the Google Benchmark rows (bench_rows.py): 6 (pinned transfers of 1 GiB are 2-3x
faster than pageable) and 7 (a pinned ring of at most 256 MiB beats pageable copies)."""

from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData

MB = 1024**2
TRANSFER_SIZE = float(1024**3)
RING_LIMIT = 256 * MB


def _transfer(data: ClaimData, kind: str, op: str, size: float) -> float | None:
    for r in data.bench.transfer:
        if r.kind == kind and r.op == op and r.bytes == size:
            return r.fraction
    return None


class PinnedTransfers(Claim):
    n = "6"
    title = "Don't pin: pinned transfers of about 1 GB are 2-3x faster than pageable ones."

    def gather(self, data: ClaimData) -> list[tuple[str, float]]:
        """(op, pinned over pageable) at 1 GiB, where both rows are there."""
        out = []
        for op in ("h2d", "d2h"):
            p, q = _transfer(data, "pinned", op, TRANSFER_SIZE), _transfer(data, "pageable", op, TRANSFER_SIZE)
            if p and q:
                out.append((op, p / q))
        return out

    def applies(self, seen: list[tuple[str, float]]) -> str | None:
        return None if seen else "no 1 GiB pinned and pageable transfer rows (--bench transfer_bench.json)"

    def judge(self, seen: list[tuple[str, float]]) -> Finding:
        text = ", ".join(f"{op} {s:.1f}x" for op, s in seen)
        inside = all(2 <= s <= 3 for _, s in seen)
        return (CONFIRMED if inside else REFUTED), f"pinned over pageable at 1 GiB: {text} (claim: 2-3x)"


class RingBuffer(Claim):
    n = "7"
    title = "Ring buffer: a fixed pinned ring (e.g. 256 MB) for chunked transfers beats pageable copies."

    def applies(self, seen: ClaimData) -> str | None:
        return None if seen.bench.staging else "no staging rows (--bench staging_bench.json)"

    def judge(self, seen: ClaimData) -> Finding:
        out, worse = [], []
        for b in seen.bench.baselines:
            if b.kind != "pageable":
                continue
            ring = [r for r in seen.bench.staging if r.op == b.op and r.size == b.size and r.pinned <= RING_LIMIT]
            if not ring:
                continue
            best = max(ring, key=lambda r: r.fraction)
            out.append(f"{b.op} {b.size}: ring {best.fraction:.2f} vs pageable {b.fraction:.2f}")
            if best.fraction <= b.fraction:
                worse.append(out[-1])
        if not out:
            return NOT_TESTED, "no pageable baseline rows beside the ring rows"
        if worse:
            return REFUTED, "a ring of at most 256 MiB is not faster than pageable: " + worse[0]
        return CONFIRMED, "fraction of link, ring of at most 256 MiB pinned: " + "; ".join(out)
