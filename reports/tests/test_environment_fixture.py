"""pinreport's readers of the environment record against the harness's own.

reports/tests/written_by_cpp/environment_records.json is written by the C++ side
(harness/tests/cpu/environment_record_test.cpp, which fails when the committed copy is stale):
environment records as environment_json() writes them from typed facts, with what the harness's
readers get from each. A key renamed in C++ changes the records, and the readers here then
disagree with C++'s. Nothing here is re-typed from C++.
"""

import dataclasses
import json

import pytest
from conftest import REPO_ROOT
from pinreport.readers.environment import WSL2_MODEL, driver_models, driver_release, flattened, model_family, store_key
from pinreport.readers.store_key import StoreKey

FIXTURE = json.loads((REPO_ROOT / "reports/tests/written_by_cpp/environment_records.json").read_text(encoding="utf-8"))
RECORDS = FIXTURE["records"]


def test_the_fixture_holds_cases():
    assert FIXTURE["written_by"] == "harness/tests/cpu/environment_record_test.cpp"
    assert {r["name"] for r in RECORDS} >= {"windows-two-gpus", "linux-one-gpu", "no-gpu", "wsl2-one-gpu"}


def test_wsl2_is_wddm_under_its_own_store_key():
    """The WSL2 model pinreport names is the one C++ writes, WDDM for scenarios, and its store
    key is apart from both native Windows (wddm) and Linux (linux)."""
    (wsl2,) = [r for r in RECORDS if r["name"] == "wsl2-one-gpu"]
    assert wsl2["reads"]["driver_models"] == [WSL2_MODEL]
    assert model_family(WSL2_MODEL) == "WDDM"
    assert wsl2["environment"]["os"]["wsl"]["version"] == 2
    keys = {r["name"]: store_key(r["environment"]) for r in RECORDS}
    assert keys["wsl2-one-gpu"].driver_model == "wddm-wsl2"
    assert keys["wsl2-one-gpu"].group != keys["windows-two-gpus"].group
    assert keys["wsl2-one-gpu"].group != keys["linux-one-gpu"].group


@pytest.mark.parametrize("case", RECORDS, ids=lambda c: c["name"])
def test_pinreport_reads_what_the_harness_reads(case):
    env, reads = case["environment"], case["reads"]
    assert driver_release(env) == (reads["driver_release"] or None)
    assert driver_models(env) == reads["driver_models"]
    assert store_key(env) == StoreKey(**reads["store_key"])


@pytest.mark.parametrize("case", [r for r in RECORDS if r["reads"]["cuda_device_count"]], ids=lambda c: c["name"])
def test_a_record_with_devices_gives_every_store_component(case):
    """Where the harness knows every fact, pinreport finds every one (no "unknown-" part) ..."""
    if case["reads"]["driver_models"].count("unknown"):
        pytest.skip("a device NVML does not list has no driver model, as the harness reads it")
    key = store_key(case["environment"])
    assert not [part for part in dataclasses.astuple(key) if part.startswith("unknown-")], key


def test_the_environment_table_compares_the_facts_the_harness_writes():
    """... and the environment table shows each written fact by its path, unavailable ones with
    their reason, and no device's pid."""
    fields = flattened(RECORDS[0]["environment"], None)
    assert fields["devices[0].name"] == RECORDS[0]["reads"]["device_names"][0]
    assert fields["os.session0"] is True
    assert fields["os.sysmem_fallback_policy"].startswith("unavailable (")
    assert fields["other_compute_processes"] == "1 process(es)"
    assert "driver.release" not in fields
