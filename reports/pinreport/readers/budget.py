"""`pinbench budget` documents (docs/budget.md): read as results files are (readers/results.py): bounded,
strict JSON, then docs/budget.schema.json; BadInputError "FILE: FIELD PATH: message" on any problem.
The harness computed every value; this reader derives nothing."""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pinreport.base.input_file import RESULTS_LIMIT
from pinreport.base.schema import (
    BUDGET_SCHEMA_NAME,
    BUDGET_SCHEMA_OLDEST_VERSION,
    BUDGET_SCHEMA_VERSION,
    budget_json_schema_text,
    schema_of,
)
from pinreport.readers.documents import read_versioned_document, versioned_document_from_bytes
from pinreport.readers.environment import Environment

# Every version this pinreport reads: the oldest to the harness's (docs/budget.schema.json).
BUDGET_VERSIONS = tuple(range(BUDGET_SCHEMA_OLDEST_VERSION, BUDGET_SCHEMA_VERSION + 1))


# largest_single.stopped_by of a search that did not run (--held-only), read from the schema's
# $defs.not_measured (test_budget.py checks it equals budget_child.hpp's budget_stop::not_measured).
NOT_MEASURED: str = json.loads(budget_json_schema_text())["$defs"]["not_measured"]["properties"]["stopped_by"]["const"]


@dataclass(frozen=True)
class FamilyBudget:
    family: str
    status: str
    safe_budget: int | None  # None unless status is "ok"
    limit_found: bool  # False: the cap, time or host memory stopped it (the budget is a lower bound)
    failure: str | None  # "clean", "poisons", "not_seen"
    silent_fallback: bool
    held_at_once: int | None
    largest_single: int | None  # None also where it was not measured (--held-only: largest_single_measured)
    largest_single_measured: bool  # False under --held-only (stopped_by "not_measured") or without an answer
    vram_cost_at_budget: int | None
    vram_disturbed: tuple[str, ...]  # the NVML watch's evidence; vram_cost_at_budget is None then
    stopped_by: str | None  # what stopped the held phase (the budget's search): driver, cap, ...
    stopped_words: str | None  # the harness's words for it ("capped at 16 GiB, the real limit is higher")
    chunk: int | None  # the held phase's chunk: the step a budget moves in
    pin_s_per_gib: float | None
    # Version 2: the limit of the process that ended the held search (the host's memory, a
    # cgroup, the address space), in the harness's words; None where the driver, the cap or the
    # time ended it, or in a version 1 document.
    bounded_by: str | None = None

    @staticmethod
    def from_json(f: dict[str, Any]) -> "FamilyBudget":
        ok = f["status"] == "ok"
        return FamilyBudget(
            family=f["family"],
            status=f["status"],
            safe_budget=f["safe_budget"] if ok else None,
            limit_found=bool(f.get("limit_found", False)),
            failure=f.get("failure"),
            silent_fallback=bool(f.get("silent_fallback", False)),
            held_at_once=f["held_at_once"]["bytes"] if ok else None,
            largest_single=f["largest_single"]["bytes"] if ok else None,
            largest_single_measured=ok and f["largest_single"]["stopped_by"] != NOT_MEASURED,
            vram_cost_at_budget=f.get("vram_cost_at_budget"),
            vram_disturbed=tuple(f.get("vram_disturbed", ())),
            stopped_by=f["held_at_once"]["stopped_by"] if ok else None,
            stopped_words=f["held_at_once"]["words"] if ok else None,
            chunk=f["held_at_once"].get("chunk") if ok else None,
            pin_s_per_gib=f.get("pin_s_per_gib"),
            bounded_by=f["bounded_by"]["words"] if "bounded_by" in f else None,
        )


@dataclass(frozen=True)
class BudgetDocument:
    path: str
    version: int  # the document's version (BUDGET_VERSIONS)
    complete: bool
    held_only: bool  # --held-only: the held phases alone (the safe budget); no largest single pin
    safe_budget: int | None
    safe_family: str | None  # the family the overall safe budget is (the smaller family's)
    safe_limit_found: bool  # its search reached the driver's limit (False: a lower bound)
    families: tuple[FamilyBudget, ...]
    environment: Environment  # the environment record, read once
    machine: str  # the first GPU's name, "driver R", the platform (the environment record)
    started_at: str  # when the search started (ISO 8601 UTC): the store files it by it
    # The checked document, for summary() alone: every other stage reads the values above.
    _doc: dict[str, Any] = field(repr=False, compare=False)

    # Version 2: the limit that bounded every request at the start, in words (None: none read, or
    # a version 1 document), and how many processes the OOM killer of a group of this process
    # killed while the budget ran.
    bounding: str | None = None
    oom_kills: int = 0

    def summary(self) -> dict[str, Any]:
        """What the store's history index keeps of it: the document without each family's phases
        (every pin tried, most of its bytes, which no reader of the store reads);
        budget_from_document() reads it back."""
        families = [{k: v for k, v in f.items() if k != "phases"} for f in self._doc.get("families", [])]
        return {**self._doc, "families": families}


_READ_AS = (
    BUDGET_SCHEMA_NAME,
    BUDGET_VERSIONS,
    f"versions {BUDGET_SCHEMA_OLDEST_VERSION} to {BUDGET_SCHEMA_VERSION}",
    "budget",
)


def load_budget(path: str | Path) -> BudgetDocument:
    """A budget document from a file: bounded, strict JSON, name, version, schema."""
    doc = read_versioned_document(path, RESULTS_LIMIT, *_READ_AS, schema_of("budget"))
    return budget_from_document(doc, str(path))


def budget_from_bytes(data: bytes, path: str) -> BudgetDocument:
    """load_budget() of bytes already read (a stored budget, whose bytes the store hashes)."""
    return budget_from_document(versioned_document_from_bytes(data, path, *_READ_AS, schema_of("budget")), path)


def budget_from_document(doc: dict[str, Any], p: str) -> BudgetDocument:
    """The typed values of a checked budget document (load_budget, or a stored one the history
    index kept: its phases, which no reader types, may be left out)."""
    best = doc["safe_budget"]
    limits = doc.get("limits") or {}
    bounding = limits.get("bounding")
    env = Environment.from_json(doc.get("environment", {}))
    return BudgetDocument(
        path=p,
        version=doc["version"],
        complete=doc["complete"],
        held_only=doc["options"].get("held_only", False),
        safe_budget=best["bytes"] if best is not None else None,
        safe_family=best["family"] if best is not None else None,
        safe_limit_found=bool(best["limit_found"]) if best is not None else False,
        families=tuple(FamilyBudget.from_json(f) for f in doc["families"]),
        environment=env,
        machine=_machine(env),
        started_at=doc.get("started_at", ""),
        _doc=doc,
        bounding=bounding["words"] if bounding else None,
        oom_kills=sum(max(e["oom_kill"], 0) for e in limits.get("oom_events", [])),
    )


def _machine(env: Environment) -> str:
    """ "NVIDIA H100 80GB HBM3, driver 580.65.06, linux": the first GPU, the driver, the platform."""
    gpu = env.device_names[0] if env.device_names else None
    return ", ".join(
        [gpu if gpu else "unknown GPU", f"driver {env.release or 'unknown'}"] + ([env.platform] if env.platform else [])
    )
