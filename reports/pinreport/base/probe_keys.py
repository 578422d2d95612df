"""Probe keys, their readings in a repeat's snapshots, and the metric names built on them.

As harness/include/pinbench/probes/snapshot.hpp (describe_key, by the rule the catalog exports;
cost_between) and the metric names of harness/src/results/run_metrics.cpp. The metrics' values
themselves are never derived here: every results file carries each metric's per-repeat samples
(results schema 4 on; the harness upgrades older files: `pinbench results upgrade`).
"""

import re
from dataclasses import dataclass

from pinreport.base import catalog

# metric prefixes of the costs against the "after_context" snapshot, one per snapshot label
_TARGETS = ("cost.after_alloc.", "cost.after_first_use.", "residual.after_free.")


# The dedicated-memory (VRAM) keys of one device, the ones the reservation rule judges and the
# kinds' tables show first: cudaMemGetInfo, NVML per device, DXGI local, PDH dedicated.
_DEDICATED = re.compile(r"^(cuda\.free|nvml\.[0-9]+\.used|dxgi\.local\.usage|pdh\.[A-Za-z0-9_]+\.dedicated)$")


# The capacity kind's metric: how much the largest cudaMalloc block shrank (the rule judges it
# where a capacity run has no probe key of its own).
CAPACITY_LOSS = "capacity.loss"


def is_dedicated_key(key: str) -> bool:
    return bool(_DEDICATED.match(key))


@dataclass(frozen=True)
class KeyInfo:
    direction: str  # "usage" (goes up when consumed), "available" (goes down), "fixed"
    budget: str  # "dedicated" or "shared"


def describe_key(key: str) -> KeyInfo:
    """As describe_key() in pinbench/probes/snapshot.hpp, by the rule the harness's catalog exports."""
    rule = catalog.key_rule()
    direction = "usage"
    if key.endswith(rule.available_suffixes):
        direction = "available"
    elif key.endswith(rule.fixed_suffixes):
        direction = "fixed"
    shared = key.startswith(rule.shared_prefixes) or key.endswith(rule.shared_suffixes)
    return KeyInfo(direction, "shared" if shared else "dedicated")


def split_metric(name: str) -> tuple[str, str] | None:
    """ "cost.after_first_use.nvml.0.used" -> ("cost.after_first_use", "nvml.0.used");
    None for metrics that are not about a probe key (time.*)."""
    for prefix in _TARGETS:
        if name.startswith(prefix):
            return prefix[:-1], name[len(prefix) :]
    return None


def cost_between(key: str, before: int, after: int) -> int | None:
    d = describe_key(key).direction
    if d == "usage":
        return after - before
    if d == "available":
        return before - after
    return None
