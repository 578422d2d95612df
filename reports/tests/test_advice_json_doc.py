"""advice/json_doc.py: the --json document: schema and version, bytes as integers, ratios as
numbers, evidence and missing as objects; it reads back equal to the Advice."""

import json

from advice_data import STAGING, TRANSFER, h200_runs, trace
from pinreport.advice.build import build_advice
from pinreport.advice.evidence import load_benches
from pinreport.advice.json_doc import ADVICE_SCHEMA, ADVICE_VERSION, advice_json, format_advice_json


def test_the_document_carries_every_number_of_the_advice():
    a = build_advice(
        trace("trace-dataloader-w4.json"), h200_runs(), load_benches([str(TRANSFER), str(STAGING)]), store_given=True
    )
    doc = json.loads(format_advice_json(a))
    assert doc == json.loads(json.dumps(advice_json(a)))
    assert (doc["schema"], doc["version"]) == (ADVICE_SCHEMA, ADVICE_VERSION)
    cost = doc["program"]["cost"]
    assert cost["held_bytes"] == 5 * 2**30 and cost["blocks"] == [{"bytes": 512 * 2**20, "count": 10}]
    assert abs(cost["vram_predicted"] - a.program.cost.predicted) < 1e-3
    ring = next(o for o in doc["program"]["options"] if o["name"] == "staging_ring")
    assert ring["bytes_after"] == 64 * 2**20 and 0.8 < ring["speed_ratio"] < 0.9
    assert ring["evidence"][0]["what"] == "staging benchmark" and ring["missing"] == []
    assert doc["missing"][0]["what"] == "pin budget"
    assert doc["sites"][0]["scope"] == "libtorch_cuda.so+0xcc0bd3"


def test_missing_evidence_is_an_object_with_what_to_run():
    doc = advice_json(build_advice(trace("trace-dataloader-w4.json"), [], load_benches([])))
    page = next(o for o in doc["program"]["options"] if o["name"] == "pageable")
    assert page["speed_ratio"] is None and page["complete"] is False
    assert page["missing"][0]["what"] == "pageable copy speed" and "transfer_bench" in page["missing"][0]["run"]


def _keys(value, out: set) -> set:
    if isinstance(value, dict):
        for k, v in value.items():
            if not k.isdigit() and not k.startswith(("host_", "pool_", "vmm_")):  # by_family's keys are data
                out.add(k)
            _keys(v, out)
    elif isinstance(value, list):
        for v in value:
            _keys(v, out)
    return out


def test_docs_advise_md_names_every_field_the_document_has():
    from advice_data import REPO

    text = (REPO / "docs/advise.md").read_text()
    section = text[text.index("## --json") : text.index("## Limits")]
    a = build_advice(trace("trace-pin-each-api.json"), h200_runs(), load_benches([str(TRANSFER), str(STAGING)]))
    missing = sorted(k for k in _keys(advice_json(a), set()) if f"`{k}`" not in section)
    assert not missing, f"docs/advise.md's --json section does not name {missing}"
