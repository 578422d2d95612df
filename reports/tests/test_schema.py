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
