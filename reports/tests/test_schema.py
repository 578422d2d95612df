"""The Python side's schema constants must equal the C++ writer's (house rule 4)."""

import re

import pytest
from conftest import REPO_ROOT
from pinreport.base import schema


def _cpp_constant(header: str, name: str) -> str:
    text = (REPO_ROOT / "harness/include/pinbench" / header).read_text()
    m = re.search(rf"inline constexpr [^=]*\b{name}\s*=\s*([^;]+);", text)
    assert m, f"{name} not found in {header}"
    return m.group(1).strip().strip('"')


def test_results_schema_matches_cpp_header():
    assert _cpp_constant("results/results.hpp", "results_schema_name") == schema.RESULTS_SCHEMA_NAME
    assert int(_cpp_constant("results/results.hpp", "results_schema_version")) == schema.RESULTS_SCHEMA_VERSION


def test_store_schema_matches_cpp_header():
    header = REPO_ROOT / "harness/include/pinbench/store/store.hpp"
    if not header.exists():
        pytest.skip("harness/include/pinbench/store/store.hpp is not in this tree")
    assert _cpp_constant("store/store.hpp", "store_schema_name") == schema.STORE_SCHEMA_NAME
    assert int(_cpp_constant("store/store.hpp", "store_schema_version")) == schema.STORE_SCHEMA_VERSION


def test_test_double_marker_matches_cpp_header():
    assert _cpp_constant("vocabulary/test_double.hpp", "test_double_marker") == schema.TEST_DOUBLE_MARKER


def test_bundled_json_schema_is_the_documented_one():
    documented = (REPO_ROOT / "docs/results.schema.json").read_text()
    assert schema.results_json_schema_text() == documented


def test_bundled_trace_schema_is_the_documented_one():
    documented = (REPO_ROOT / "docs/trace.schema.json").read_text()
    assert schema.trace_json_schema_text() == documented


def test_replay_note_matches_the_json_schema():
    assert f'"const": "{schema.REPLAY_NOTE}"' in schema.results_json_schema_text()


def test_json_schema_accepts_every_version_the_harness_reads_up_to_pinreports():
    """The format's schema names every version (the harness reads them all and upgrades the older
    ones); pinreport's own is its last."""
    import json

    text = json.loads(schema.results_json_schema_text())
    versions = text["properties"]["schema_version"]["enum"]
    assert versions == list(range(1, schema.RESULTS_SCHEMA_VERSION + 1))
    assert text["$defs"]["metric"]["properties"]["unit"]["enum"] == ["bytes", "ms", "ratio", "count"]


# --- DocumentSchema: the one check of a document against its schema (issue 57) -----------------


def _integer_paths(doc, prefix=()):
    """The paths of every integer (not bool) in a document."""
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _integer_paths(v, (*prefix, k))]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in _integer_paths(v, (*prefix, i))]
    return [prefix] if isinstance(doc, int) and not isinstance(doc, bool) else []


def _replaced(doc, path, value):
    import copy

    out = copy.deepcopy(doc)
    node = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return out


def test_an_integer_written_as_a_number_is_refused_as_the_cpp_reader_refuses_it():
    """Before: jsonschema took 1.0 for an integer (JSON Schema's own rule) where pinbench
    refuses it: `plan.size_bytes: 67108864.0` read in pinreport, refused in pinbench."""
    import json

    base = json.loads((REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json").read_text())
    checked = schema.DocumentSchema(json.loads(schema.results_json_schema_text()))
    assert checked.first_error(base) is None
    size = base["runs"][0]["plan"]["size_bytes"]
    error = checked.first_error(_replaced(base, ("runs", 0, "plan", "size_bytes"), float(size)))
    assert list(error.absolute_path) == ["runs", 0, "plan", "size_bytes"]
    assert error.message == f"{float(size)!r} is not of type 'integer'"


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schema_strategies import trace_documents  # noqa: E402


def _trace_schemas():
    import json

    return json.loads(schema.trace_json_schema_text()), json.loads(schema.results_json_schema_text())


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(doc=trace_documents(), data=st.data())
def test_an_integer_written_as_a_float_is_refused_exactly_where_the_schema_says_integer(doc, data):
    """Any trace the schema admits passes. One of its integers written as a float (x.0) is
    refused exactly where the schema types it integer; the oracle is plain jsonschema, which
    refuses both x + 0.5 and x - 0.5 only there (a number field takes one of them at least)."""
    import jsonschema
    from referencing import Registry, Resource

    trace, results = _trace_schemas()
    checked = schema.DocumentSchema(trace, results)
    assert checked.first_error(doc) is None
    paths = [p for p in _integer_paths(doc) if abs(_get(doc, p)) < 2**52]
    if not paths:
        return
    path = data.draw(st.sampled_from(paths))
    x = _get(doc, path)
    registry = Registry().with_resource(results["$id"], Resource.from_contents(results))
    plain = jsonschema.Draft202012Validator(trace, registry=registry)
    integer_typed = all(not plain.is_valid(_replaced(doc, path, x + d)) for d in (0.5, -0.5))
    error = checked.first_error(_replaced(doc, path, float(x)))
    assert (error is not None) == integer_typed, (path, x, error and error.message)


def _get(doc, path):
    for part in path:
        doc = doc[part]
    return doc
