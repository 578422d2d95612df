"""Hypothesis strategies that build JSON documents from our JSON Schemas (docs/*.schema.json),
for the property tests (test_fuzz_*.py): every document drawn is valid under the schema, so
whatever a reader does with one must be an answer or a named refusal, never an exception.

Only the keywords our schemas use are understood (type, const, enum, properties, required,
additionalProperties, propertyNames with a pattern, items, prefixItems, minItems, maxItems,
oneOf, allOf's if/then as written in results.schema.json is left to the validator, $ref to
#/$defs and to another schema's $id, minimum, maximum, exclusiveMinimum); an unknown keyword
fails loudly here rather than drawing documents the schema refuses.
"""

import json
from typing import Any

from hypothesis import strategies as st
from pinreport.base.schema import results_json_schema_text, trace_json_schema_text

# Keys drawn for additionalProperties: short text, with the characters a terminal must not see.
_KEY = st.text(min_size=1, max_size=8)  # (text() draws no lone surrogate: JSON cannot carry one)
_TEXT = st.text(max_size=12) | st.sampled_from(["\x1b[2K\rFORGED", "a\nb", "\x07\x00", "580.65.06", ""])
_SKIPPED = {"$schema", "$id", "title", "description", "$comment"}
_UNDERSTOOD = {
    "type", "const", "enum", "properties", "required", "additionalProperties", "propertyNames", "items",
    "prefixItems", "minItems", "maxItems", "oneOf", "$ref", "minimum", "maximum", "exclusiveMinimum",
    "allOf", "$defs",
}  # fmt: skip
_MAX_INT = 2**64 - 1  # the strict reader's largest integer (readers/strict_json.py, strict_json.cpp)


def _schemas() -> dict[str, dict[str, Any]]:
    results = json.loads(results_json_schema_text())
    trace = json.loads(trace_json_schema_text())
    return {results["$id"]: results, trace["$id"]: trace}


class SchemaStrategies:
    """strategy(schema) for one root schema (its $defs, and other schemas by $id)."""

    def __init__(self, root: dict[str, Any], max_leaves: int = 4) -> None:
        self.root = root
        self.by_id = _schemas()
        self.max_leaves = max_leaves

    def _resolve(self, ref: str, root: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        base, _, pointer = ref.partition("#")
        doc = self.by_id[base] if base else root
        node: Any = doc
        for part in filter(None, pointer.split("/")):
            node = node[part]
        return node, doc

    def strategy(self, schema: dict[str, Any] | None = None, root: dict[str, Any] | None = None) -> st.SearchStrategy:
        schema = self.root if schema is None else schema
        root = self.root if root is None else root
        unknown = set(schema) - _UNDERSTOOD - _SKIPPED
        if unknown:
            raise AssertionError(f"schema_strategies: keywords not understood: {sorted(unknown)}")
        if "$ref" in schema:
            target, doc = self._resolve(schema["$ref"], root)
            return st.deferred(lambda: self.strategy(target, doc))
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if "oneOf" in schema:
            return st.one_of([self.strategy(s, root) for s in schema["oneOf"]])
        types = schema.get("type")
        if types is None:
            return st.none() | st.booleans() | st.integers(0, 9) | _TEXT
        if isinstance(types, list):
            return st.one_of([self.strategy({**schema, "type": t}, root) for t in types])
        return getattr(self, f"_{types}")(schema, root)

    def _null(self, schema, root):
        return st.none()

    def _boolean(self, schema, root):
        return st.booleans()

    def _string(self, schema, root):
        return _TEXT

    def _integer(self, schema, root):
        low = schema.get("minimum", -(2**63))
        high = schema.get("maximum", _MAX_INT)
        edges = [v for v in (low, high, 0, 1, 2**20, 2**31, 2**53 + 1) if low <= v <= high]
        return st.integers(low, high) | st.sampled_from(edges)

    def _number(self, schema, root):
        low = schema.get("minimum")
        high = schema.get("maximum")
        exclusive = "exclusiveMinimum" in schema
        if exclusive:
            low = schema["exclusiveMinimum"]
        floats = st.floats(low, high, allow_nan=False, allow_infinity=False, exclude_min=exclusive)
        ints = st.integers(int(low) + 1 if low is not None else -(2**53), int(high) if high is not None else 2**53)
        return floats | ints

    def _array(self, schema, root):
        if "prefixItems" in schema:
            return st.tuples(*(self.strategy(s, root) for s in schema["prefixItems"])).map(list)
        items = self.strategy(schema.get("items", {}), root)
        low = schema.get("minItems", 0)
        return st.lists(items, min_size=low, max_size=schema.get("maxItems", max(low, self.max_leaves)))

    def _object(self, schema, root):
        props = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fixed = {k: self.strategy(v, root) for k, v in props.items() if k in required}
        optional = {k: self.strategy(v, root) for k, v in props.items() if k not in required}
        extra = schema.get("additionalProperties")
        base = st.fixed_dictionaries(fixed, optional=optional)
        if not isinstance(extra, dict):
            return base
        names = schema.get("propertyNames", {}).get("pattern")
        keys = st.from_regex(names, fullmatch=True) if names else _KEY
        keys = keys.filter(lambda k: k not in props)
        more = st.dictionaries(keys, self.strategy(extra, root), max_size=self.max_leaves)
        return st.tuples(base, more).map(lambda bm: {**bm[1], **bm[0]})


def trace_documents() -> st.SearchStrategy:
    return SchemaStrategies(json.loads(trace_json_schema_text())).strategy()
