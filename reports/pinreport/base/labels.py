"""How the outputs name things (the HTML page, the console, Markdown): anchors, sizes, probes,
and which probe a chart draws."""

import re

from pinreport.base.probe_keys import CAPACITY_LOSS, is_dedicated_key
from pinreport.base.units import format_bytes

MiB, GiB = 1024**2, 1024**3
_NOT_ID = re.compile(r"[^A-Za-z0-9]+")


def anchor(*parts: str) -> str:
    """A stable HTML id from parts: ("cost", "quick/x", "cudaHostAlloc:mapped") -> cost-quick-x-..."""
    return "-".join(_NOT_ID.sub("-", p).strip("-") for p in parts)


def size_label(n: float) -> str:
    """Exact binary sizes as scenario files write them (64MiB, 4GiB); others via format_bytes."""
    for unit, f in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if n >= f and n % f == 0:
            return f"{int(n // f)}{unit}"
    return format_bytes(n)


def probe_label(key: str) -> str:
    """The probe a key belongs to, by the API that reads it (cudaMemGetInfo, NVML, DXGI, PDH)."""
    m = re.match(r"^nvml\.([0-9]+)\.(\w+)$", key)
    if key == "cuda.free":
        return "cudaMemGetInfo"
    if m:
        return f"NVML {m.group(2)} (GPU {m.group(1)})"
    if key.startswith("dxgi.local."):
        return "DXGI LOCAL"
    if key.startswith("dxgi.nonlocal."):
        return "DXGI NON_LOCAL"
    if key.startswith("pdh."):
        return f"PDH {key[4:]}"
    if key == CAPACITY_LOSS:
        return "capacity loss (largest cudaMalloc block)"
    return key


def headline_key(keys: list[str] | set[str]) -> str | None:
    """The probe charted when only one fits: cudaMemGetInfo, else the first dedicated key, else
    the capacity loss (capacity runs)."""
    if "cuda.free" in keys:
        return "cuda.free"
    judged = sorted(k for k in keys if is_dedicated_key(k))
    if judged:
        return judged[0]
    return CAPACITY_LOSS if CAPACITY_LOSS in keys else None
