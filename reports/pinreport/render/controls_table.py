"""The controls table and the null control's granule per probe."""

from typing import TypedDict

from pinreport.base.labels import probe_label
from pinreport.base.units import format_bytes
from pinreport.pipeline.values import Controls


class ControlRow(TypedDict):
    name: str
    verdict: str
    detail: str


class GranuleRow(TypedDict):
    probe: str
    key: str
    granule: str


def control_rows(controls: Controls) -> tuple[list[ControlRow], list[GranuleRow]]:
    """(controls, null-control granule per probe) of a results file."""
    rows: list[ControlRow] = []
    for c in controls.controls:
        detail = [f"{k} {format_bytes(v) if k != 'samples' else v}" for k, v in c.quantities]
        detail += [text for text in (c.why, c.error) if text]
        rows.append(
            {"name": c.name, "verdict": c.verdict if c.verdict is not None else "(none)", "detail": "; ".join(detail)}
        )
    grows: list[GranuleRow] = [
        {"probe": probe_label(k), "key": k, "granule": format_bytes(g) if g is not None else written}
        for k, g, written in controls.granules
    ]
    return rows, grows
