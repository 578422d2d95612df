"""`pinbench budget` documents: pinreport's reader against one the harness wrote (against the
test double: a poisoning limit of 40 MiB), its schema and name/version equal to the C++ writer's."""

import json
import re

import pytest
from conftest import REPO_ROOT
from pinreport import schema
from pinreport.errors import BadInputError
from pinreport.result.budget import load_budget

FIXTURE = REPO_ROOT / "reports/tests/fixtures/budget/double-poisons.json"
MIB = 1 << 20


def _cpp_budget_constant(name: str) -> str:
    text = (REPO_ROOT / "harness/src/run/budget.hpp").read_text()
    m = re.search(rf"inline constexpr [^=]*\b{name}\s*=\s*([^;]+);", text)
    assert m, f"{name} not found in harness/src/run/budget.hpp"
    return m.group(1).strip().strip('"')


def test_name_and_version_equal_the_cpp_writers():
    assert _cpp_budget_constant("kBudgetSchema") == schema.BUDGET_SCHEMA_NAME
    assert int(_cpp_budget_constant("kBudgetVersion")) == schema.BUDGET_SCHEMA_VERSION
    documented = json.loads((REPO_ROOT / "docs/budget.schema.json").read_text())
    assert documented["properties"]["schema"]["const"] == schema.BUDGET_SCHEMA_NAME
    assert documented["properties"]["version"]["const"] == schema.BUDGET_SCHEMA_VERSION


def test_bundled_schema_is_the_documented_one():
    assert schema.budget_json_schema_text() == (REPO_ROOT / "docs/budget.schema.json").read_text()


def test_reads_what_the_harness_wrote():
    b = load_budget(FIXTURE)
    assert b.complete
    assert b.safe_budget == 32 * MIB  # 80% of 40 MiB held, in 8 MiB chunks
    assert [f.family for f in b.families] == ["cudaMallocHost", "cudaHostRegister"]
    for f in b.families:
        assert f.status == "ok"
        assert f.held_at_once == 40 * MIB
        assert f.largest_single == 32 * MIB
        assert f.failure == "poisons"
        assert f.limit_found
        assert not f.silent_fallback
    assert b.families[0].vram_cost_at_budget == 64 * 1024  # 32 MiB at 2 MiB per GiB


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d.update(version=2), "budget version 2 is not understood"),
        (lambda d: d.update(version=True), "budget version True is not understood"),
        (lambda d: d.update(schema="pinbench.results"), "not a pinbench budget"),
        (lambda d: d["families"][0].update(failure="maybe"), "families[0].failure"),
        (lambda d: d["families"][0]["held_at_once"].update(bytes=-1), "families[0].held_at_once.bytes"),
        (lambda d: d.pop("safe_budget"), "'safe_budget' is a required property"),
    ],
)
def test_a_bad_document_is_named(tmp_path, change, says):
    doc = json.loads(FIXTURE.read_text())
    change(doc)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError) as e:
        load_budget(path)
    assert says in str(e.value)
    assert str(e.value).startswith(str(path))
