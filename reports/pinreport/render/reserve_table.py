"""The reserve table: what the fitted rule recommends reserving per api, at the pipeline's sizes
(views.RESERVE_SIZES)."""

from pinreport.base.labels import probe_label, size_label
from pinreport.base.units import format_bytes
from pinreport.pipeline.views import RESERVE_SIZES, ReserveRow


def reserve_sizes() -> list[str]:
    return [size_label(s) for s in RESERVE_SIZES]


def reserve_rows(rows: tuple[ReserveRow, ...]) -> list[dict[str, str]]:
    """One row per api: the reserve per GPU at each size, its probe, the notes, and the ratio
    at the largest size."""
    out = []
    for r in rows:
        row = {"api": r.api, "probe": probe_label(r.family.replace(".*.", ".0.")), "notes": "; ".join(r.notes)}
        for size, per_gpu in r.per_gpu:
            row[size_label(size)] = format_bytes(per_gpu) if per_gpu is not None else ""
        row["ratio"] = f"{r.ratio:.3g}"
        out.append(row)
    return out
