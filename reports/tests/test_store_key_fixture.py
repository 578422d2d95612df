"""pinreport's store keys and measurement identities against the harness's own.

reports/tests/written_by_cpp/store_keys.json is written by the C++ side
(harness/tests/cpu/store_key_fixture_test.cpp, which fails when the committed copy is stale): the
environment records and results documents in it, with the key and identity C++ gives each. Nothing
here is re-typed from C++.
"""

import json

import pytest
from conftest import REPO_ROOT
from pinreport.readers.environment import store_key
from pinreport.readers.results import measurement_id
from pinreport.readers.store_key import StoreKey

FIXTURE = json.loads((REPO_ROOT / "reports/tests/written_by_cpp/store_keys.json").read_text(encoding="utf-8"))


def test_the_fixture_holds_cases():
    assert FIXTURE["written_by"] == "harness/tests/cpu/store_key_fixture_test.cpp"
    assert len(FIXTURE["store_keys"]) >= 5 and len(FIXTURE["measurement_identities"]) >= 3


@pytest.mark.parametrize("case", FIXTURE["store_keys"], ids=lambda c: "/".join(c["key"].values()))
def test_store_key_is_the_harness_key(case):
    assert store_key(case["environment"]) == StoreKey(**case["key"])


@pytest.mark.parametrize("case", FIXTURE["measurement_identities"], ids=lambda c: c["measurement_id"])
def test_measurement_id_is_the_harness_identity(case):
    assert measurement_id(case["results"]) == case["measurement_id"]
