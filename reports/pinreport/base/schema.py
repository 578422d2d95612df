"""Names and versions of the files pinreport reads, written once on this side, and the one way a
document is checked against its JSON Schema (DocumentSchema).

They must equal the C++ writer's constants (harness/include/pinbench/results/results.hpp and
store.hpp); tests/test_schema.py reads those headers and checks it.
"""

import json
import re
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

from pinreport.base.errors import BadInputError

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
# device names out of its folder names; version 4 keeps budget documents beside the results of
# their key (<time>-<hash>.budget.json.gz). Older stores still read.
STORE_SCHEMA_VERSION = 4
STORE_SCHEMA_OLDEST_VERSION = 1

# `pinbench budget`'s document (docs/budget.md); equal to kBudgetSchema and kBudgetVersion of
# harness/include/pinbench/results/budget_document.hpp (tests/test_budget.py reads that header).
# Version 2 adds the limits of the process (limits, bounded_by, the stops memory_limit,
# address_space, oom_event); version 1 documents still read.
BUDGET_SCHEMA_NAME = "pinbench.budget"
BUDGET_SCHEMA_VERSION = 2
BUDGET_SCHEMA_OLDEST_VERSION = 1

# `pinreport drivers --json` (docs/drivers.md): its schema is data/drivers.schema.json, whose
# "schema" and "version" consts equal these (tests/test_drivers.py).
DRIVERS_SCHEMA_NAME = "pinreport.drivers"
DRIVERS_SCHEMA_VERSION = 1

# What the test-double driver's device name and driver release carry (docs/test-double.md); its
# results are never a baseline. Equal to harness/include/pinbench/vocabulary/test_double.hpp's marker.
TEST_DOUBLE_MARKER = "test-double"

# The note every replayed results file carries (docs/replay.md).
REPLAY_NOTE = "REPLAYED DATA derived from a real results file; not a measurement"


def bench_json_schema_text() -> str:
    """The JSON Schema of the Google Benchmark files pinreport reads (--bench): what it reads of
    them, with their bounds (data/bench.schema.json, pinreport's own)."""
    return resources.files("pinreport").joinpath("data/bench.schema.json").read_text(encoding="utf-8")


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


def drivers_json_schema_text() -> str:
    """The JSON Schema of `pinreport drivers --json` documents (docs/drivers.md)."""
    return resources.files("pinreport").joinpath("data/drivers.schema.json").read_text(encoding="utf-8")


# --- checking a document against its schema: the one place for every kind of file -------------

# The keyword DocumentSchema adds beside every `"type": "integer"` for the fast validator
# (jsonschema-rs), which, as JSON Schema says, takes 1.0 for an integer.
_STRICT_INTEGER = "x-pinreport-integer"


def _is_integer_type(types: object) -> bool:
    """A schema's `type` that admits integers and not other numbers."""
    listed = types if isinstance(types, list) else [types]
    return "integer" in listed and "number" not in listed


def _integers_only(values: list[Any]) -> bool:
    return bool(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def strict_integers(schema: Any) -> Any:
    """A copy of `schema` as DocumentSchema checks it: a `const` or `enum` of integers without a
    `type` is typed integer (a version 1 is not 1.0), and every integer type carries
    _STRICT_INTEGER for the fast validator."""
    if isinstance(schema, dict):
        out = {k: strict_integers(v) for k, v in schema.items()}
        values = [schema["const"]] if "const" in schema else schema.get("enum")
        if "type" not in schema and isinstance(values, list) and _integers_only(values):
            out["type"] = "integer"
        if _is_integer_type(out.get("type")):
            out[_STRICT_INTEGER] = True
        return out
    if isinstance(schema, list):
        return [strict_integers(v) for v in schema]
    return schema


class _StrictInteger:
    """jsonschema-rs's custom keyword: an integer is a JSON integer, never a number written with
    a fraction or an exponent (1.0, 1e3), as the C++ reader reads it (JsonAt::integer)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        if instance.__class__ is float:
            raise ValueError(f"{instance!r} is not of type 'integer'")


def _is_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_StrictDraft202012 = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


class DocumentSchema:
    """A JSON Schema as pinreport checks every document against it (results, traces, budgets,
    Google Benchmark files): the schema's bounds (minimum, maximum, maxLength, ...) as written,
    and integers as integers: 1.0 or 1e3 where the schema says integer is refused, as the C++
    reader refuses it (JSON Schema itself counts 1.0 as an integer). jsonschema-rs (compiled)
    says whether a document passes (about 1.3 ms a real nightly file against 620 ms for
    jsonschema: results/store-scale/README.md); where it does not, jsonschema words the first
    problem (best_match; `reference` is that validator). `others`: the schemas this one refers
    to by $id (the trace's refer to the results schema's definitions)."""

    def __init__(self, schema: dict[str, Any], *others: dict[str, Any]) -> None:
        strict = [(o["$id"], strict_integers(o)) for o in others]
        registry = Registry().with_resources((uri, Resource.from_contents(o)) for uri, o in strict)
        self.reference = _StrictDraft202012(strict_integers(schema), registry=registry)
        self._fast = jsonschema_rs.validator_for(
            strict_integers(schema),
            keywords={_STRICT_INTEGER: _StrictInteger},
            **({"registry": jsonschema_rs.Registry(strict)} if strict else {}),
        ).is_valid

    def passes(self, doc: Any) -> bool:
        try:
            return self._fast(doc)
        except (ValueError, TypeError, OverflowError):  # a value jsonschema-rs cannot convert
            return False

    def first_error(self, doc: Any) -> jsonschema.ValidationError | None:
        """None when `doc` passes; else its first problem (jsonschema's best_match), or, where
        jsonschema finds none though jsonschema-rs refused, a ValidationError saying so."""
        if self.passes(doc):
            return None
        error = best_match(self.reference.iter_errors(doc))
        return error or jsonschema.ValidationError(
            "refused by the schema (jsonschema-rs), though jsonschema accepts it"
        )

    def check(self, doc: Any, path: str) -> None:
        """Nothing where `doc` passes; else BadInputError "FILE: FIELD PATH: message" naming its
        first problem (the message cut at 200 characters: a refused value may be long)."""
        error = self.first_error(doc)
        if error is None:
            return
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        raise BadInputError(path, f"{json_path(error.absolute_path)}: {message}")


_SCHEMA_TEXTS = {
    "results": results_json_schema_text,
    "trace": trace_json_schema_text,
    "budget": budget_json_schema_text,
    "bench": bench_json_schema_text,
}


@cache
def schema_of(kind: str) -> DocumentSchema:
    """The schema every document of `kind` ("results", "trace", "budget", "bench") is checked
    against, loaded once; a trace's refers to the results schema's definitions by $id."""
    schema = json.loads(_SCHEMA_TEXTS[kind]())
    others = [json.loads(results_json_schema_text())] if kind == "trace" else []
    return DocumentSchema(schema, *others)


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def json_path(parts) -> str:
    """["runs", 0, "metrics", "cost.x"] -> 'runs[0].metrics["cost.x"]' (as the C++ reader)."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENTIFIER.match(p):
            out += ("." if out else "") + p
        else:
            out += "[" + json.dumps(p) + "]"
    return out or "(document)"
