import json
import re

import pytest
from builders import MiB, document, kind_run, kinds_doc, results_doc, run_doc, write_json
from conftest import REPO_ROOT, upgraded
from pinreport.base.errors import BadInputError, OlderResultsError
from pinreport.readers.results import ResultsFile, load_results
from pinreport.readers.validate import json_path

HARNESS_FIXTURES = REPO_ROOT / "harness/tests/fixtures/results"


def test_harness_valid_fixture_loads():
    r = load_results(upgraded(HARNESS_FIXTURES / "valid_v1.json"))
    assert document(r)["runs"][0]["id"] == "quick/cudaMallocHost/64MiB/x1/g1"
    assert not r.replayed


def test_builder_documents_are_schema_valid(tmp_path):
    doc = results_doc([run_doc(timings={"alloc": [1.0] * 7})])
    r = load_results(write_json(tmp_path / "r.json", doc))
    assert len(r.runs) == 1


def test_other_version_names_file_and_versions():
    # As the C++ reader words it (harness/tests/cpu/results_json_test.cpp), with what this reads.
    with pytest.raises(BadInputError) as e:
        load_results(HARNESS_FIXTURES / "version6.json")
    assert str(e.value) == (
        f"{HARNESS_FIXTURES / 'version6.json'}: results schema version 6 is not supported "
        "(this pinreport reads version 5)"
    )


@pytest.mark.parametrize("version", [0, 6, "2", True, None])
def test_versions_outside_1_to_5_are_rejected(tmp_path, version):
    doc = results_doc([run_doc()])
    doc["schema_version"] = version
    with pytest.raises(BadInputError, match=r"is not supported \(this pinreport reads version 5\)") as e:
        load_results(write_json(tmp_path / "r.json", doc))
    assert not isinstance(e.value, OlderResultsError)


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_an_older_version_is_refused_with_the_command_that_upgrades_it(tmp_path, version, monkeypatch):
    """The harness alone upgrades: pinreport never starts it (data and calls flow from the
    harness to the report only). Before: pinreport ran `pinbench results upgrade -` itself."""
    started = tmp_path / "started"
    harness = tmp_path / "pinbench"
    harness.write_text(f"#!/bin/sh\ntouch {started}\nexit 1\n")
    harness.chmod(0o755)
    monkeypatch.setenv("PINBENCH_EXE", str(harness))
    path = write_json(tmp_path / "old night.json", results_doc([run_doc()], schema_version=version))
    with pytest.raises(OlderResultsError) as e:
        load_results(path)
    assert str(e.value) == (
        f"{path}: results schema version {version}, older than version 5, which this pinreport reads: "
        f"upgrade it with `pinbench results upgrade '{path}' -o NEW.json`"
    )
    assert e.value.version == version
    assert not started.exists()


def test_version_4_samples_are_read_as_written(tmp_path):
    doc = results_doc([run_doc(timings={"alloc": [3.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0]})])
    r = load_results(write_json(tmp_path / "r.json", doc))
    assert r.runs[0].metrics["time.alloc_ms"].samples == (3.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0)


def test_version_5_stopping_and_phases_round_trip(tmp_path):
    # Results schema 5 (the stopping rule): a run's stopping record and a repeat's phases, read as written.
    run = run_doc(timings={"alloc": [1.0] * 7})
    run["stopping"] = {"planned": 5, "stopped_at": 3, "why": "agreed: 3 repeats identical to the byte"}
    for r in run["repeats"]:
        r["phases_ms"] = {"wait_before": 0.0, "start": 12.5, "measure": 250.0, "exit": 90.0, "return_wait": 20.0}
    r = load_results(write_json(tmp_path / "r.json", results_doc([run])))
    assert document(r)["schema_version"] == 5
    assert document(r)["runs"][0]["stopping"] == {
        "planned": 5,
        "stopped_at": 3,
        "why": "agreed: 3 repeats identical to the byte",
    }
    assert document(r)["runs"][0]["repeats"][0]["phases_ms"]["exit"] == 90.0


def test_version_5_needs_the_stopping_record(tmp_path):
    run = run_doc(timings={"alloc": [1.0] * 7})
    doc = results_doc([run])
    del doc["runs"][0]["stopping"]
    with pytest.raises(BadInputError, match=r"r.json: runs\[0\]: 'stopping' is a required property"):
        load_results(write_json(tmp_path / "r.json", doc))
    doc = results_doc([run_doc(timings={"alloc": [1.0] * 7})])
    doc["runs"][0]["stopping"] = {"planned": 5, "stopped_at": "3", "why": ""}
    with pytest.raises(BadInputError, match="stopped_at"):
        load_results(write_json(tmp_path / "r.json", doc))


def test_samples_must_match_n(tmp_path):
    # Worded as the C++ reader (harness/tests/cpu/results_json_test.cpp).
    doc = results_doc([run_doc(timings={"alloc": [1.0] * 7})])
    doc["runs"][0]["metrics"]["time.alloc_ms"]["samples"] = [1.0]
    with pytest.raises(BadInputError) as e:
        load_results(write_json(tmp_path / "r.json", doc))
    assert str(e.value).endswith('runs[0].metrics["time.alloc_ms"].samples: holds 1 samples where n is 7')
    del doc["runs"][0]["metrics"]["time.alloc_ms"]["samples"]
    with pytest.raises(BadInputError, match=re.escape('runs[0].metrics["time.alloc_ms"]')):
        load_results(write_json(tmp_path / "r.json", doc))


def test_older_metric_that_cannot_be_rebuilt_has_no_samples(tmp_path):
    # A version 3 summary that the repeats do not give (the timings say 1 ms): the harness's
    # upgrade keeps the summary and says null, so it is never judged on samples it does not have.
    doc = results_doc([run_doc(timings={"alloc": [1.0] * 7})], schema_version=3)
    doc["runs"][0]["metrics"]["time.alloc_ms"]["median"] = 5.0
    r = load_results(upgraded(write_json(tmp_path / "r.json", doc)))
    assert r.runs[0].metrics["time.alloc_ms"].samples is None
    assert r.runs[0].metrics["time.alloc_ms"].median == 5.0
    assert r.runs[0].metrics["cost.after_alloc.cuda.free"].samples == (2.0 * 1024**2,) * 7


def test_every_kind_loads_with_params_and_data(tmp_path):
    doc = kinds_doc()
    doc["runs"][1]["repeats"][0]["data"] = {"pin_error": "", "filler_intact": True}
    r = load_results(write_json(tmp_path / "r.json", doc))
    assert document(r)["schema_version"] == 5
    assert {run.plan.kind for run in r.runs} == {
        "overhead",
        "capacity",
        "sweep",
        "multi_gpu",
        "workers",
        "churn",
        "fragmentation",
        "shared",
        "register_window",
    }
    assert dict(r.runs[1].plan.params) == {"free_target": 12 * 1024**3}
    assert r.runs[1].metrics["capacity.read_ratio"].unit == "ratio"
    assert r.runs[1].metrics["capacity.pin_failed"].unit == "count"


@pytest.mark.parametrize(
    "edit, where",
    [
        (lambda d: d["runs"][0]["plan"].__setitem__("params", []), "runs[0].plan.params"),
        (lambda d: d["runs"][0]["repeats"][0].__setitem__("data", "x"), "runs[0].repeats[0].data"),
        (lambda d: d["runs"][0]["metrics"]["capacity.loss"].__setitem__("unit", "percent"), "runs[0].metrics"),
    ],
)
def test_params_data_and_units_are_checked(tmp_path, edit, where):
    doc = results_doc([kind_run("capacity", {"capacity.loss": [1.0] * 7}, {"free_target": 1})])
    edit(doc)
    with pytest.raises(BadInputError, match=re.escape(where)):
        load_results(write_json(tmp_path / "r.json", doc))


def test_committed_version_1_results_load_as_the_harness_upgrades_them(repo_root):
    r = load_results(upgraded(repo_root / "results/h200-quick/results.json"))
    assert document(r)["schema_version"] == 5 and r.runs
    # Every metric of the committed file is rebuilt per repeat (none summary only).
    assert all(isinstance(m.samples, tuple) for run in r.runs for m in run.metrics.values())


def test_not_results():
    with pytest.raises(BadInputError) as e:
        load_results(HARNESS_FIXTURES / "not_results.json")
    assert "not_results.json: not a pinbench results file (schema is" in str(e.value)


def test_syntax_error_names_position(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{"schema": ')
    with pytest.raises(BadInputError) as e:
        load_results(p)
    assert str(e.value).startswith(f"{p}: invalid JSON at line 1, column 12")


def test_missing_file():
    with pytest.raises(BadInputError, match="nope.json: cannot read"):
        load_results("nope.json")


def test_schema_violation_names_json_path(tmp_path):
    doc = results_doc([run_doc()])
    del doc["runs"][0]["repeats"][0]["status"]
    with pytest.raises(BadInputError) as e:
        load_results(write_json(tmp_path / "r.json", doc))
    assert "r.json: runs[0].repeats[0]: 'status' is a required property" in str(e.value)


def test_replay_without_block_is_rejected(tmp_path):
    doc = results_doc([run_doc()])
    doc["backend"] = "replay"
    with pytest.raises(BadInputError, match="r.json: replay"):
        load_results(write_json(tmp_path / "r.json", doc))


def test_replayed_property(tmp_path):
    doc = results_doc([run_doc()], replay_of="results/h200-quick/results.json")
    assert load_results(write_json(tmp_path / "r.json", doc)).replayed


def test_json_path_quotes_dotted_names():
    assert json_path(["runs", 0, "metrics", "cost.after_alloc.cuda.free"]) == (
        'runs[0].metrics["cost.after_alloc.cuda.free"]'
    )
    assert json_path([]) == "(document)"


def test_json_roundtrip_of_fixture_dir():
    # Committed fixtures of this package stay loadable.
    from conftest import FIXTURES

    for p in sorted(FIXTURES.glob("*.json")):
        if p.name.startswith("bad-"):
            with pytest.raises(BadInputError):
                load_results(p)
        else:
            # Read as the current version: the same document, each metric with its samples.
            raw, doc = json.loads(p.read_text()), document(load_results(p))
            assert doc["schema_version"] == 5 and [r["id"] for r in doc["runs"]] == [r["id"] for r in raw["runs"]]
            for run, raw_run in zip(doc["runs"], raw["runs"], strict=True):
                for name, m in raw_run["metrics"].items():
                    got = run["metrics"][name]
                    assert {k: got[k] for k in m} == m and len(got["samples"]) == m["n"]


def test_a_run_is_found_by_its_id():
    doc = results_doc([run_doc(size=1 * MiB), run_doc(size=2 * MiB)])
    current = ResultsFile("r.json", doc)
    first, second = doc["runs"]
    assert current.run(second["id"]).plan.size == 2 * MiB and current.run(first["id"]).plan.size == 1 * MiB
    assert current.run("no-such-run") is None
