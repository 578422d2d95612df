"""The reserve table: what the fitted rule recommends reserving per api, at RESERVE_SIZES."""

from pinreport.analysis.fit import CostFit, FitKey, recommend
from pinreport.base.labels import GiB, probe_label, size_label
from pinreport.base.units import format_bytes
from pinreport.readers.store_key import StoreKey

RESERVE_SIZES = (1 * GiB, 4 * GiB)


def reserve_rows(fits: dict[FitKey, CostFit], key: StoreKey) -> list[dict[str, str]]:
    """One row per api: the reserve per GPU at each size, its probe, the notes, and the ratio
    at the largest size."""
    rows = []
    recs_at = {size: recommend(fits, size, 1, {key.group: key.release}) for size in RESERVE_SIZES}
    for rec in recs_at[RESERVE_SIZES[-1]]:
        row = {"api": rec.api, "probe": probe_label(rec.family.replace(".*.", ".0.")), "notes": "; ".join(rec.notes)}
        for size in RESERVE_SIZES:
            match = [r for r in recs_at[size] if r.api == rec.api]
            row[size_label(size)] = format_bytes(match[0].per_gpu) if match else ""
        row["ratio"] = f"{rec.per_gpu / RESERVE_SIZES[-1]:.3g}"
        rows.append(row)
    return rows
