#!/usr/bin/env python3
"""Print the issue-6 tables (markdown) from one run's Google Benchmark JSON files.

    python3 benchmarks/summarize.py results/h200-bench

Reads transfer_bench.json, staging_bench.json and alloc_bench.json from the directory with
pinreport's loader (reports/pinreport/readers/gbench.py: only the `_median` aggregate of each row; the
programs report aggregates only). Every number printed is a value from those files or a ratio
of two of them; nothing is assumed. It needs pinreport's requirements (gbench.py checks each
file against data/bench.schema.json), as the rest of reports/ does.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# The one Google Benchmark JSON loader is pinreport's (standard library only): this checkout's.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
from pinreport.readers.gbench import BenchFile, load_bench

# noqa: E402

MiB = 1 << 20
GiB = 1 << 30
RING_PINNED_LIMIT = 64 * MiB  # the budget for the ring
RING_TARGET = 0.90  # ring / full-pinned H2D: the staging ring's target
LINK_TARGET = 0.85  # pinned / link's theoretical rate: the transfers' target
KNEE_SHARE = 0.95  # the curve "bends" where it first reaches this share of its maximum


def size_bytes(label: str) -> int:
    """'4KiB' / '16MiB' / '1GiB' -> bytes."""
    m = re.fullmatch(r"(\d+)(KiB|MiB|GiB)", label)
    if not m:
        raise ValueError(f"not a size label: {label!r}")
    return int(m.group(1)) << {"KiB": 10, "MiB": 20, "GiB": 30}[m.group(2)]


def size_label(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n}B"


@dataclass(frozen=True)
class Ring:
    op: str
    size: int
    k: int
    c: int
    t: int
    gbps: float

    @property
    def pinned(self) -> int:
        return self.k * self.c

    def config(self) -> str:
        return f"K {self.k}, C {size_label(self.c)}, T {self.t}"


RING_RE = re.compile(r"staging/(h2d|d2h)/(\w+)/K:(\d+)/C:(\w+)/T:(\d+)")


def ring_rows(bench: BenchFile) -> list[Ring]:
    rows = []
    for name, row in bench.medians.items():
        m = RING_RE.fullmatch(name)
        if m:
            op, size, k, c, t = m.groups()
            rows.append(Ring(op, size_bytes(size), int(k), size_bytes(c), int(t), row["GBps"]))
    return rows


def best_ring(rings: list[Ring], op: str, size: int, limit: int) -> Ring | None:
    fits = [r for r in rings if r.op == op and r.size == size and r.pinned <= limit]
    return max(fits, key=lambda r: r.gbps, default=None)


def curve(rings: list[Ring], op: str, size: int, threads: int) -> list[tuple[int, Ring]]:
    """Best ring per distinct K*C for one thread count, ascending K*C."""
    best: dict[int, Ring] = {}
    for r in rings:
        if r.op == op and r.size == size and r.t == threads and (r.pinned not in best or r.gbps > best[r.pinned].gbps):
            best[r.pinned] = r
    return sorted(best.items())


def knee(points: list[tuple[int, Ring]], share: float = KNEE_SHARE) -> Ring | None:
    """The smallest K*C whose bandwidth reaches `share` of the curve's maximum."""
    if not points:
        return None
    top = max(r.gbps for _, r in points)
    return next(r for _, r in points if r.gbps >= share * top)


def smallest_meeting(rings: list[Ring], sizes: list[int], baseline: dict[int, float], target: float) -> Ring | None:
    """Smallest K*C (then fewest threads) whose same (K, C, T) reaches target at every size (H2D)."""
    by_cfg: dict[tuple[int, int, int], dict[int, float]] = {}
    for r in rings:
        if r.op == "h2d":
            by_cfg.setdefault((r.k, r.c, r.t), {})[r.size] = r.gbps
    ok = [cfg for cfg, per in by_cfg.items() if all(s in per and per[s] / baseline[s] >= target for s in sizes)]
    if not ok:
        return None
    k, c, t = min(ok, key=lambda cfg: (cfg[0] * cfg[1], cfg[2], cfg[0]))
    return Ring("h2d", sizes[0], k, c, t, by_cfg[(k, c, t)][sizes[0]])


def best_min_ratio(
    rings: list[Ring], sizes: list[int], baseline: dict[int, float], limit: int
) -> tuple[Ring, float] | None:
    """Within the pinned limit, the (K, C, T) measured at every size whose worse H2D ratio is highest."""
    by_cfg: dict[tuple[int, int, int], dict[int, float]] = {}
    for r in rings:
        if r.op == "h2d" and r.pinned <= limit:
            by_cfg.setdefault((r.k, r.c, r.t), {})[r.size] = r.gbps
    scored = [
        (min(per[s] / baseline[s] for s in sizes), cfg) for cfg, per in by_cfg.items() if all(s in per for s in sizes)
    ]
    if not scored:
        return None
    ratio, (k, c, t) = max(scored)
    return Ring("h2d", sizes[0], k, c, t, by_cfg[(k, c, t)][sizes[0]]), ratio


def fmt(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def transfer_table(bench: BenchFile) -> list[str]:
    link = bench.link_bytes_per_second()
    out = [
        f"link: {bench.context.get('pcie.link_basis')} = {fmt(link / 1e9 if link else None)} GB/s",
        "",
        "| row | GB/s | fraction_of_link (JSON) | GB/s / link (recomputed) |",
        "| --- | --- | --- | --- |",
    ]
    for name, row in bench.medians.items():
        if not name.startswith("transfer/"):
            continue
        recomputed = row["bytes_per_second"] / link if link else None
        out.append(f"| `{name}` | {fmt(row['GBps'])} | {fmt(row.get('fraction_of_link'), 3)} | {fmt(recomputed, 3)} |")
    return out


def staging_tables(bench: BenchFile) -> list[str]:
    rings = ring_rows(bench)
    sizes = [GiB, 4 * GiB]
    out = []
    for op in ("h2d", "d2h"):
        base = {s: bench.gbps(f"staging_baseline/pinned/{op}/{size_label(s)}") for s in sizes}
        page = {s: bench.gbps(f"staging_baseline/pageable/{op}/{size_label(s)}") for s in sizes}
        out += [
            "",
            f"### {op}: best ring with K*C <= {size_label(RING_PINNED_LIMIT)} against full pinned",
            "",
            "| size | best ring (K, C, T) | K*C | ring GB/s | pinned GB/s | ring / pinned "
            "| pageable GB/s | pageable / pinned | best T=1 ring / pinned |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for s in sizes:
            r = best_ring(rings, op, s, RING_PINNED_LIMIT)
            t1 = best_ring([x for x in rings if x.t == 1], op, s, RING_PINNED_LIMIT)
            out.append(
                f"| {size_label(s)} | {r.config() if r else 'not measured'} | {size_label(r.pinned) if r else ''} "
                f"| {fmt(r.gbps if r else None)} | {fmt(base[s])} | {fmt(r.gbps / base[s] if r else None, 3)} "
                f"| {fmt(page[s])} | {fmt(page[s] / base[s], 3)} | {fmt(t1.gbps / base[s] if t1 else None, 3)} |"
            )
    base = {s: bench.gbps(f"staging_baseline/pinned/h2d/{size_label(s)}") for s in sizes}
    threads = sorted({r.t for r in rings})
    out += [
        "",
        "### h2d curve: best (K, C) per K*C for each T, GB/s (ring / pinned); 4 GiB only where measured",
        "",
        "| K*C | " + " | ".join(f"1GiB T={t}" for t in threads) + " | 4GiB T=8 |",
        "| --- | " + " | ".join("---" for _ in threads) + " | --- |",
    ]
    per_t = {t: dict(curve(rings, "h2d", GiB, t)) for t in threads}
    big = dict(curve(rings, "h2d", 4 * GiB, max(threads)))
    for kc in sorted({r.pinned for r in rings if r.op == "h2d"}):
        cells = []
        for t in threads:
            r = per_t[t].get(kc)
            cells.append(f"{fmt(r.gbps)} ({fmt(r.gbps / base[GiB], 3)}) K{r.k} C{size_label(r.c)}" if r else "")
        r = big.get(kc)
        cells.append(f"{fmt(r.gbps)} ({fmt(r.gbps / base[4 * GiB], 3)}) K{r.k} C{size_label(r.c)}" if r else "")
        out.append(f"| {size_label(kc)} | " + " | ".join(cells) + " |")
    for t in threads:
        kn = knee(curve(rings, "h2d", GiB, t))
        out.append(
            f"\nknee 1GiB T={t} (first K*C >= {KNEE_SHARE:.0%} of that curve's max): "
            f"{size_label(kn.pinned)} ({kn.config()}, {fmt(kn.gbps)} GB/s)"
        )
    meet = smallest_meeting(rings, sizes, base, RING_TARGET)
    out.append(
        f"\nsmallest K*C with ring/pinned >= {RING_TARGET} at 1GiB and 4GiB (same K, C, T): "
        + (f"{size_label(meet.pinned)} ({meet.config()})" if meet else "none measured")
    )
    bm = best_min_ratio(rings, sizes, base, RING_PINNED_LIMIT)
    if bm:
        r, ratio = bm
        out.append(
            f"highest worse-of-two ratio within {size_label(RING_PINNED_LIMIT)}: {r.config()} "
            f"(K*C {size_label(r.pinned)}), min(ratio 1GiB, ratio 4GiB) = {fmt(ratio, 3)}"
        )
    return out


def alloc_table(bench: BenchFile) -> list[str]:
    out = [
        "| size | cudaMallocHost alloc+free GB/s (alloc s, free s) | register touched GB/s (reg s) "
        "| register untouched GB/s (reg s) | first touch GB/s (s) | pageable alloc+free GB/s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    sizes = sorted({size_bytes(n.rsplit("/", 1)[1]) for n in bench.medians if n.startswith("first_touch/")})
    for s in sizes:
        lab = size_label(s)

        def cell(name: str, *secs: str, lab: str = lab) -> str:
            row = bench.medians.get(name.format(lab))
            if row is None:
                return "not measured"
            extra = ", ".join(f"{row[k]:.3g}" for k in secs)
            return f"{row['bytes_per_second'] / 1e9:.3g} ({extra})"

        out.append(
            f"| {lab} | {cell('alloc_free/cudaMallocHost/{}', 'alloc_seconds', 'free_seconds')} "
            f"| {cell('host_register/touched/{}', 'register_seconds')} "
            f"| {cell('host_register/untouched/{}', 'register_seconds')} "
            f"| {cell('first_touch/{}', 'touch_seconds')} | {cell('alloc_free/pageable/{}', 'alloc_seconds')} |"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="directory holding the three benchmark JSON files")
    args = parser.parse_args(argv)
    lines = ["## transfer_bench.json", ""]
    lines += transfer_table(load_bench(args.run_dir / "transfer_bench.json"))
    lines += ["", "## staging_bench.json"]
    lines += staging_tables(load_bench(args.run_dir / "staging_bench.json"))
    lines += ["", "## alloc_bench.json", ""]
    lines += alloc_table(load_bench(args.run_dir / "alloc_bench.json"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
