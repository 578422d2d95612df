from builders import MiB, results_doc, run_doc
from pinreport.analysis.expect import ClaimVerdict, check_expectations
from pinreport.readers.results import ResultsFile


def _doc(cost_mib, expect, driver_model="WDDM", granule=2 * MiB):
    runs = [
        run_doc(
            size=1000 * MiB,
            costs={"cuda.free": [cost_mib * MiB] * 7, "dxgi.nonlocal.usage": [900 * MiB] * 7},
            granules={"cuda.free": granule, "dxgi.nonlocal.usage": granule},
        ),
        run_doc(api="pageable", size=1000 * MiB, costs={"cuda.free": [900 * MiB] * 7}),  # control: ignored
    ]
    return results_doc(
        runs, platform="windows", driver_model=driver_model, scenarios=[{"name": "quick-overhead", "expect": expect}]
    )


def _claims(doc):
    return {(c.driver_model, c.limit): c for c in check_expectations(ResultsFile("r.json", doc))}


def test_claims_confirmed_and_refuted():
    expect = {"WDDM": {"max_overhead_ratio": 0.2, "min_overhead_ratio": 0.1}}
    c = _claims(_doc(150, expect))
    assert c[("WDDM", "max_overhead_ratio")].verdict == ClaimVerdict.CONFIRMED
    assert c[("WDDM", "min_overhead_ratio")].verdict == ClaimVerdict.CONFIRMED
    assert c[("WDDM", "max_overhead_ratio")].checked == 1  # shared memory and pageable not counted
    c = _claims(_doc(50, expect))
    assert c[("WDDM", "min_overhead_ratio")].verdict == ClaimVerdict.REFUTED
    assert "0.05 < 0.1" in c[("WDDM", "min_overhead_ratio")].reason
    c = _claims(_doc(300, expect))
    assert c[("WDDM", "max_overhead_ratio")].verdict == ClaimVerdict.REFUTED


def test_claim_within_one_granule_is_ambiguous():
    c = _claims(_doc(199, {"WDDM": {"max_overhead_ratio": 0.2}}))
    assert c[("WDDM", "max_overhead_ratio")].verdict == ClaimVerdict.AMBIGUOUS
    c = _claims(_doc(198, {"WDDM": {"max_overhead_ratio": 0.2}}))
    assert c[("WDDM", "max_overhead_ratio")].verdict == ClaimVerdict.CONFIRMED


def test_max_overhead_bytes():
    expect = {"linux": {"max_overhead_bytes": 4 * MiB}}
    assert _claims(_doc(0, expect, driver_model="linux"))[("linux", "max_overhead_bytes")].verdict == (
        ClaimVerdict.CONFIRMED
    )
    refuted = _claims(_doc(8, expect, driver_model="linux"))[("linux", "max_overhead_bytes")]
    assert refuted.verdict == ClaimVerdict.REFUTED
    assert "8.00 MiB > 4.00 MiB" in refuted.reason
    assert refuted.shown_value == "4.00 MiB"


def test_claims_for_other_driver_models_are_not_tested():
    expect = {"WDDM": {"max_overhead_ratio": 0.2}, "TCC": {"max_overhead_bytes": 4 * MiB}}
    c = _claims(_doc(150, expect, driver_model="linux"))
    assert {v.verdict for v in c.values()} == {ClaimVerdict.NOT_TESTED}
    assert len(c) == 2


def _kind_doc(creep_mib, ratio, driver_model="WDDM"):
    from builders import kind_run

    runs = [
        kind_run("churn", {"churn.creep.cuda.free": [creep_mib * MiB] * 7}, scenario="nightly-churn"),
        kind_run("register_window", {"register_window.time_ratio": [ratio] * 7}, scenario="nightly-churn"),
    ]
    expect = {
        "WDDM": {
            "metrics": {
                "churn.creep.cuda.free": {"min": 4 * MiB},
                "register_window.time_ratio": {"max": 1.5},
                "workers.context_per_worker.cuda.free": {"max": 600 * MiB},
            }
        }
    }
    return results_doc(
        runs, platform="windows", driver_model=driver_model, scenarios=[{"name": "nightly-churn", "expect": expect}]
    )


def test_metric_limits_on_any_kind():
    c = _claims(_kind_doc(creep_mib=8, ratio=1.2))
    assert c[("WDDM", "churn.creep.cuda.free min")].verdict == ClaimVerdict.CONFIRMED
    assert c[("WDDM", "churn.creep.cuda.free min")].shown_value == "4.00 MiB"
    assert c[("WDDM", "register_window.time_ratio max")].verdict == ClaimVerdict.CONFIRMED
    assert c[("WDDM", "register_window.time_ratio max")].shown_value == "1.5"
    # A metric none of the scenario's runs has is not tested, never passed.
    assert c[("WDDM", "workers.context_per_worker.cuda.free max")].verdict == ClaimVerdict.NOT_TESTED
    c = _claims(_kind_doc(creep_mib=0, ratio=3.2))
    refuted = c[("WDDM", "churn.creep.cuda.free min")]
    assert refuted.verdict == ClaimVerdict.REFUTED
    assert "< 4.00 MiB" in refuted.reason, refuted.reason
    assert c[("WDDM", "register_window.time_ratio max")].verdict == ClaimVerdict.REFUTED
    assert "3.2 > 1.5" in c[("WDDM", "register_window.time_ratio max")].reason


def test_metric_limits_within_one_granule_are_ambiguous():
    c = _claims(_kind_doc(creep_mib=3, ratio=1.0))  # 3 MiB, granule 2 MiB: could be 4 MiB or more
    assert c[("WDDM", "churn.creep.cuda.free min")].verdict == ClaimVerdict.AMBIGUOUS


def test_metric_limits_for_other_driver_models_are_not_tested():
    c = _claims(_kind_doc(creep_mib=8, ratio=1.2, driver_model="linux"))
    assert {v.verdict for v in c.values()} == {ClaimVerdict.NOT_TESTED}
