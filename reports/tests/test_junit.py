import xml.etree.ElementTree as ET

from builders import MiB, add_to_store, make_store, results_doc, run_doc
from pinreport.analysis.compare import compare
from pinreport.formats.junit import write_junit
from pinreport.readers.results import parse_results
from pinreport.store.reading import read_store
from test_compare import _night


def _report(tmp_path, current_doc):
    root = make_store(tmp_path / "store")
    add_to_store(root, _night("572.16", "2025-05-01T10:00:00Z"))
    return compare(parse_results(current_doc, "current.json"), read_store(root))


def _cases(path):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    return suite, {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}


def test_junit_parses_one_case_per_scenario_and_metric(tmp_path):
    doc = _night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)
    doc["runs"].append(run_doc(api="cudaHostRegister", costs={"cuda.free": [2 * MiB] * 7}))
    doc["scenario"]["scenarios"] = [{"name": "quick-overhead", "expect": {"linux": {"max_overhead_bytes": 4 * MiB}}}]
    report = _report(tmp_path, doc)
    write_junit(report, tmp_path / "j.xml")
    suite, cases = _cases(tmp_path / "j.xml")

    metric_cases = [k for k in cases if k[0] == "quick-overhead" and not k[1].startswith(("reservation", "expect"))]
    assert len(metric_cases) == len({(v.scenario, v.metric) for v in report.verdicts})
    failure = cases[("quick-overhead", "cost.after_first_use.cuda.free")].find("failure")
    assert failure is not None and failure.get("type") == "REGRESSION"
    assert "quick-overhead/cudaMallocHost/64MiB/x1/g1 vs previous" in failure.get("message")
    assert cases[("quick-overhead", "time.alloc_ms")].find("failure") is None
    claim = cases[("quick-overhead", "expect linux max_overhead_bytes=4.00 MiB")]
    assert claim.find("failure").get("type") == "REFUTED"
    assert cases[("pinreport", "infrastructure")].find("error") is None
    assert int(suite.get("tests")) == len(cases)
    assert int(suite.get("failures")) == sum(1 for c in cases.values() if c.find("failure") is not None)


def test_junit_no_baseline_is_skipped_and_replayed_is_labelled(tmp_path):
    doc = results_doc([run_doc(gpus=1)], gpu="NVIDIA B200", replay_of="x.json")
    report = _report(tmp_path, doc)
    write_junit(report, tmp_path / "j.xml")
    suite, cases = _cases(tmp_path / "j.xml")
    assert suite.get("name").startswith("REPLAYED ")
    assert cases[("quick-overhead", "cost.after_alloc.cuda.free")].find("skipped").get("message") == "NO-BASELINE"
    assert all(
        line.startswith("REPLAYED ")
        for c in cases.values()
        if c.find("system-out") is not None
        for line in c.find("system-out").text.splitlines()
        if c.get("classname") != "pinreport"
    )
