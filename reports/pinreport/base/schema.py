"""Names and versions of the files pinreport reads, written once on this side.

They must equal the C++ writer's constants (harness/include/pinbench/results/results.hpp and
store.hpp); tests/test_schema.py reads those headers and checks it.
"""

from importlib import resources

RESULTS_SCHEMA_NAME = "pinbench.results"
# Version 2 (scenario kinds, docs/kinds.md) adds plan.params and repeats[].data; version 3 the
# status "disturbed", attempts, disturbance evidence, measurement_id, interrupted and resumed;
# version 4 the per-repeat samples of every metric; version 5 each run's stopping record and each
# repeat's phases. pinreport reads this version only: the harness upgrades an older file
# (`pinbench results upgrade`, `pinbench store upgrade`; `pinbench store add` stores this version).
RESULTS_SCHEMA_VERSION = 5

STORE_SCHEMA_NAME = "pinbench.store"
# Store version 2 names new files by XXH3-64 (version 1: FNV-1a); version 3 stores them
# gzip-compressed (.json.gz, the hash still of the uncompressed bytes) and keeps Windows' reserved
# device names out of its folder names. Version 1 and 2 stores still read.
STORE_SCHEMA_VERSION = 3
STORE_SCHEMA_OLDEST_VERSION = 1

# `pinbench budget`'s document (docs/budget.md); equal to harness/src/budget/budget.hpp's kBudgetSchema
# and kBudgetVersion (tests/test_budget.py reads that header). Version 2 adds the limits of the
# process (limits, bounded_by, the stops memory_limit, address_space, oom_event); version 1
# documents still read.
BUDGET_SCHEMA_NAME = "pinbench.budget"
BUDGET_SCHEMA_VERSION = 2
BUDGET_SCHEMA_OLDEST_VERSION = 1

# What the test-double driver's device name and driver release carry (docs/test-double.md); its
# results are never a baseline. Equal to harness/include/pinbench/vocabulary/test_double.hpp's marker.
TEST_DOUBLE_MARKER = "test-double"

# The note every replayed results file carries (docs/replay.md).
REPLAY_NOTE = "REPLAYED DATA derived from a real results file; not a measurement"


def trace_json_schema_text() -> str:
    """The JSON Schema of `pinbench trace` files: a copy of docs/trace.schema.json shipped with
    the package (a test checks the copy equals the original)."""
    return resources.files("pinreport").joinpath("data/trace.schema.json").read_text(encoding="utf-8")


def results_json_schema_text() -> str:
    """The JSON Schema of results files: a copy of docs/results.schema.json shipped with the
    package (a test checks the copy equals the original)."""
    return resources.files("pinreport").joinpath("data/results.schema.json").read_text(encoding="utf-8")


def budget_json_schema_text() -> str:
    """The JSON Schema of `pinbench budget` documents: a copy of docs/budget.schema.json shipped
    with the package (tests/test_budget.py checks the copy equals the original)."""
    return resources.files("pinreport").joinpath("data/budget.schema.json").read_text(encoding="utf-8")
