"""`pinbench budget` documents: pinreport's reader against one the harness wrote (against the
test double: a poisoning limit of 40 MiB), its schema and name/version equal to the C++ writer's."""

import json
import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT
from pinreport.base import schema
from pinreport.base.errors import BadInputError
from pinreport.readers.budget import NOT_MEASURED, load_budget

FIXTURE = REPO_ROOT / "reports/tests/fixtures/budget/double-poisons.json"
MIB = 1 << 20


def _cpp_budget_constant(name: str) -> str:
    text = (REPO_ROOT / "harness/src/budget/budget.hpp").read_text()
    m = re.search(rf"inline constexpr [^=]*\b{name}\s*=\s*([^;]+);", text)
    assert m, f"{name} not found in harness/src/budget/budget.hpp"
    return m.group(1).strip().strip('"')


def test_name_and_version_equal_the_cpp_writers():
    assert _cpp_budget_constant("kBudgetSchema") == schema.BUDGET_SCHEMA_NAME
    assert int(_cpp_budget_constant("kBudgetVersion")) == schema.BUDGET_SCHEMA_VERSION
    documented = json.loads((REPO_ROOT / "docs/budget.schema.json").read_text())
    assert documented["properties"]["schema"]["const"] == schema.BUDGET_SCHEMA_NAME
    # Every version this pinreport reads, the harness's the newest.
    assert documented["properties"]["version"]["enum"] == list(
        range(schema.BUDGET_SCHEMA_OLDEST_VERSION, schema.BUDGET_SCHEMA_VERSION + 1)
    )


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
        (lambda d: d.update(version=3), "budget version 3 is not understood (this pinreport reads versions 1 to 2)"),
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


# --held-only (docs/budget.md): the held phases alone; written by the harness against the same
# script as FIXTURE (a poisoning limit of 40 MiB, 8 MiB chunks, a cap of 1 GiB).
HELD_ONLY = REPO_ROOT / "reports/tests/fixtures/budget/double-poisons-held-only.json"


def test_reads_a_held_only_document_the_harness_wrote():
    b, full = load_budget(HELD_ONLY), load_budget(FIXTURE)
    assert b.held_only and not full.held_only
    assert b.complete
    assert b.safe_budget == full.safe_budget == 32 * MIB
    assert [f.family for f in b.families] == [f.family for f in full.families]
    for f, g in zip(b.families, full.families, strict=True):
        assert f.status == "ok"
        assert f.held_at_once == g.held_at_once == 40 * MIB
        assert (f.safe_budget, f.limit_found, f.failure, f.stopped_by) == (32 * MIB, True, "poisons", "driver")
        assert (f.safe_budget, f.limit_found, f.failure, f.stopped_by) == (
            g.safe_budget,
            g.limit_found,
            g.failure,
            g.stopped_by,
        )
        assert f.vram_cost_at_budget == g.vram_cost_at_budget
        assert f.largest_single is None and not f.largest_single_measured  # not measured, never 0
        assert g.largest_single == 32 * MIB and g.largest_single_measured
    assert [list(f["phases"]) for f in json.loads(Path(b.path).read_text())["families"]] == [["held"], ["held"]]


def test_not_measured_is_the_cpp_writers_word():
    text = (REPO_ROOT / "harness/src/budget/budget_child.hpp").read_text()
    m = re.search(r'inline constexpr const char\* not_measured = "([^"]+)";', text)
    assert m, "budget_stop::not_measured not found in harness/src/budget/budget_child.hpp"
    assert m.group(1) == NOT_MEASURED == "not_measured"


def _not_measured(f):
    f["largest_single"] = {"bytes": None, "stopped_by": "not_measured", "words": "not measured (--held-only)"}
    f["phases"].pop("single")


def _with_single(f):
    f["phases"]["single"] = {"status": "ok", "data": {}}


@pytest.mark.parametrize(
    "fixture, change, says",
    [
        # A held-only document whose largest single pin is a number, 0, or another word. (The
        # lowest jsonschema pinreport supports, 4.18, names the field, not its bytes.)
        (HELD_ONLY, lambda f: f["largest_single"].update(bytes=0), "families[0].largest_single"),
        (HELD_ONLY, lambda f: f["largest_single"].update(stopped_by="skipped"), "families[0].largest_single"),
        (HELD_ONLY, lambda f: f["largest_single"].update(stopped_by="cap"), "families[0].largest_single"),
        (HELD_ONLY, lambda f: f.pop("largest_single"), "'largest_single' is a required property"),
        (HELD_ONLY, _with_single, "families[0].phases: False schema does not allow"),
        # A full document that says its largest single pin was not measured, or has none.
        (FIXTURE, _not_measured, "families[0].largest_single"),
        (FIXTURE, lambda f: f.pop("largest_single"), "'largest_single' is a required property"),
        (FIXTURE, lambda f: f["largest_single"].update(bytes=None), "families[0].largest_single"),
        (FIXTURE, lambda f: f["largest_single"].update(stopped_by="not_measured"), "families[0].largest_single"),
    ],
)
def test_a_largest_single_that_disagrees_with_held_only_is_named(tmp_path, fixture, change, says):
    doc = json.loads(fixture.read_text())
    change(doc["families"][0])
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError) as e:
        load_budget(path)
    assert says in str(e.value)


@pytest.mark.parametrize("held_only", ["yes", 1, None])
def test_held_only_must_be_a_boolean(tmp_path, held_only):
    doc = json.loads(HELD_ONLY.read_text())
    doc["options"]["held_only"] = held_only
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError) as e:
        load_budget(path)
    assert "options.held_only" in str(e.value)


def test_a_held_only_document_without_the_option_is_refused(tmp_path):
    """Without options.held_only (as documents before the option) the reader expects both phases."""
    doc = json.loads(HELD_ONLY.read_text())
    doc["options"].pop("held_only")
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError) as e:
        load_budget(path)
    assert re.search(r"families\[[01]\]\.largest_single", str(e.value)), str(e.value)
    full = json.loads(FIXTURE.read_text())
    assert "held_only" not in full["options"]  # written before the option: still read as a full run
    assert not load_budget(FIXTURE).held_only


# Version 2, written by the harness against the test double inside a fake container (cgroup v2,
# 640 MiB, 100 MiB used beside it, 400 MiB kept free): the limit that bounded it is read.
CONTAINER = REPO_ROOT / "reports/tests/fixtures/budget/double-container.json"


def test_reads_the_limit_that_bounded_a_version_2_document():
    b = load_budget(CONTAINER)
    assert b.version == 2 == schema.BUDGET_SCHEMA_VERSION
    words = "the container's limit, 640 MiB, 100 MiB in use (cgroup v2 /, memory.max)"
    assert b.bounding == words
    assert b.oom_kills == 0
    for f in b.families:
        assert f.stopped_by == "memory_limit" and not f.limit_found
        assert f.held_at_once == 136 * MIB and f.safe_budget == 104 * MIB
        assert f.bounded_by.startswith("the container's limit, 640 MiB, ")


def test_a_version_1_document_still_reads_without_limits():
    b = load_budget(FIXTURE)
    assert b.version == 1
    assert b.bounding is None and b.oom_kills == 0
    assert all(f.bounded_by is None for f in b.families)


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d.pop("limits"), "'limits' is a required property"),
        (lambda d: d["limits"]["read"][0].update(kind="swap"), "limits.read[0].kind"),
        (lambda d: d["limits"]["read"][0].update(room=-1), "limits.read[0].room"),
        (lambda d: d["families"][0]["held_at_once"].update(stopped_by="oom"), "families[0].held_at_once.stopped_by"),
        (lambda d: d["limits"].update(oom_events=[{"where": "/", "oom": 1}]), "'oom_kill' is a required property"),
    ],
)
def test_a_bad_version_2_document_is_named(tmp_path, change, says):
    doc = json.loads(CONTAINER.read_text())
    change(doc)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError) as e:
        load_budget(path)
    assert says in str(e.value)


def test_the_oom_killers_kills_are_counted(tmp_path):
    doc = json.loads(CONTAINER.read_text())
    doc["limits"]["oom_events"] = [{"where": "/", "oom": 2, "oom_kill": 1}, {"where": "/a", "oom": 0, "oom_kill": 2}]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    assert load_budget(path).oom_kills == 3
