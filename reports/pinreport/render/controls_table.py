"""The controls table and the null control's granule per probe."""

from typing import Any

from pinreport.base.labels import probe_label
from pinreport.base.units import format_bytes


def control_rows(doc: dict[str, Any]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(controls, null-control granule per probe) from a results document."""
    controls = doc.get("controls") or {}
    rows = []
    for name, c in sorted(controls.items()):
        if name == "granules" or not isinstance(c, dict):
            continue
        detail = []
        for k in ("bytes", "tolerance", "difference", "samples", "cuda_measuring_delta", "nvml_observer_delta"):
            if isinstance(c.get(k), (int, float)) and not isinstance(c.get(k), bool):
                detail.append(f"{k} {format_bytes(c[k]) if k != 'samples' else c[k]}")
        for k in ("why", "error"):
            if c.get(k):
                detail.append(str(c[k]))
        rows.append({"name": name, "verdict": str(c.get("verdict", "(none)")), "detail": "; ".join(detail)})
    granules = controls.get("granules") if isinstance(controls.get("granules"), dict) else {}
    grows = [
        {"probe": probe_label(k), "key": k, "granule": format_bytes(v) if isinstance(v, (int, float)) else str(v)}
        for k, v in sorted(granules.items())
    ]
    return rows, grows
