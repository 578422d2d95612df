from builders import MiB, results_doc, run_doc

from pinreport.expect import ClaimVerdict, check_expectations


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
    return {(c.driver_model, c.limit): c for c in check_expectations(doc)}


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
