"""`pinreport advise` and `pinreport trace` from the command line (advice/command.py, cli.py):
stores made from the committed H200 results, the exit codes, --json, a replayed store labelled,
without a store, bad inputs named with exit 2."""

import copy
import json
import os
import subprocess
import sys

import pytest
from advice_data import H100_BUDGET, H200_FILES, REPO, STAGING, TRACES, TRANSFER, _doc, no_samples, variant
from builders import add_to_store, make_store
from pinreport.base.schema import REPLAY_NOTE
from pinreport.cli import main

W4 = str(TRACES / "trace-dataloader-w4.json")
BENCH = ["--bench", str(TRANSFER), "--bench", str(STAGING)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = make_store(tmp_path_factory.mktemp("advise") / "store")
    for p in H200_FILES:
        add_to_store(root, _doc(p))
    return str(root)


@pytest.fixture(scope="module")
def replay_store(tmp_path_factory):
    root = make_store(tmp_path_factory.mktemp("advise-replay") / "store")
    for p in H200_FILES:
        doc = copy.deepcopy(_doc(p))
        doc["backend"] = "replay"
        doc["replay"] = {"source": str(p), "source_backend": "cuda", "script": "", "note": REPLAY_NOTE}
        doc["environment"]["replayed"] = True
        add_to_store(root, doc)
    return str(root)


def test_advise_prints_the_advice_and_exits_0_when_nothing_is_worth_changing(store, capsys):
    code = main(["advise", W4, "--store", store, *BENCH])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "verdict: nothing worth changing" in text and "threshold: under 2 cost steps" in text
    assert "rests on: staging benchmark" in text and "rests on: register-window run" in text
    assert "VRAM 9.97 MiB predicted, at most" in text


def test_advise_exits_1_when_a_change_is_advised(store, capsys):
    code = main(["advise", W4, "--store", store, *BENCH, "--small", "0.00001"])
    assert code == 1
    assert "verdict: pin only the bytes the buffers need: 2.07 GiB less" in capsys.readouterr().out


def test_advise_json_is_one_document_with_every_option(store, capsys):
    code = main(["advise", W4, "--store", store, *BENCH, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == "pinbench-advice" and doc["version"] == 1
    assert doc["exit_code"] == 0 and doc["program"]["verdict"]["kind"] == "nothing worth changing"
    opts = {o["name"]: o for o in doc["program"]["options"]}
    assert set(opts) == {"over_allocation", "staging_ring", "pageable", "register_window"}
    assert opts["over_allocation"]["bytes_saved"] == 10 * 212 * 2**20
    assert opts["pageable"]["evidence"][0]["path"] == str(TRANSFER)
    assert doc["program"]["cost"]["vram_observed"] == 10 * 2**20


def test_advise_works_without_a_store(capsys):
    code = main(["advise", W4, *BENCH])
    text = capsys.readouterr().out
    assert code == 0
    assert "store missing: no --store" in text and "pinbench run nightly --store STORE" in text
    assert "scaled from the trace's own observed cost" in text


def test_without_a_store_and_without_a_device_figure_the_exit_is_3(tmp_path, capsys):
    t = variant(tmp_path, "trace-dataloader-w4.json", no_samples)
    assert main(["advise", str(t.path)]) == 3
    assert "cannot weigh it" in capsys.readouterr().out


def test_a_replayed_store_is_labelled(replay_store, capsys):
    code = main(["advise", W4, "--store", replay_store, "--replay", *BENCH])
    text = capsys.readouterr().out
    assert code == 0
    assert text.startswith("[REPLAYED] advice for") and "REPLAYED DATA" in text


def test_bad_inputs_are_named_with_exit_2_and_the_rest_is_used(store, tmp_path, capsys):
    bad = tmp_path / "bench.json"
    bad.write_text("[]")
    code = main(["advise", W4, "--store", store, "--bench", str(bad), "--bench", str(TRANSFER), "--budget", str(bad)])
    captured = capsys.readouterr()
    assert code == 2
    assert f"{bad}: not a Google Benchmark JSON file" in captured.err
    assert "copy speed 12% of pinned now" in captured.out
    assert main(["advise", W4, "--store", str(tmp_path / "none")]) == 2
    assert main(["advise", str(bad)]) == 2


def test_a_budget_of_another_machine_is_said_in_the_output(store, capsys):
    assert main(["advise", W4, "--store", store, "--budget", str(H100_BUDGET)]) == 0
    assert "pin budget missing: " in capsys.readouterr().out


def test_trace_runs_without_a_store_and_prints_the_advice(capsys):
    code = main(["trace", W4])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "NO_FIT" in text and "advice for" in text and "store missing: no --store" in text


def test_trace_with_a_store_judges_as_before_and_adds_the_advice_to_the_page(store, tmp_path, capsys):
    page = tmp_path / "trace.html"
    code = main(["trace", W4, "--store", store, *BENCH, "--html", str(page)])
    text = capsys.readouterr().out
    assert code == 0 and ": AGREES" in text.splitlines()[0]
    html = page.read_text()
    assert "Advice: what to change" in html and "nothing worth changing" in html
    assert "staging_bench.json" in html


DOUBLE = REPO / "build/ci-nogpu/harness/tests/doubles/driver/program/traced_program"
PINBENCH = REPO / "build/ci-nogpu/harness/pinbench"


@pytest.mark.skipif(not (DOUBLE.exists() and PINBENCH.exists()), reason="needs the built pinbench and test double")
def test_the_gpu_script_runs_end_to_end_against_the_test_double(store, tmp_path):
    """results/advice/run_on_gpu.sh's dry run: every step, the advice JSON and the comparison."""
    out = tmp_path / "out"
    env = {**os.environ, "ADVICE_DRY_RUN": "double", "PYTHON": sys.executable}
    done = subprocess.run(
        ["bash", str(REPO / "results/advice/run_on_gpu.sh"), str(PINBENCH), store, str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    log = (out / "log.txt").read_text()
    assert log.count("pinbench trace exit 0") == 10 and "pinreport advise exit 3" in log
    advice = json.loads((out / "train_loop-advice.json").read_text())
    assert advice["machine"]["gpu"] == "pinbench test-double GPU" and advice["exit_code"] == 3
    comparison = json.loads((out / "comparison.json").read_text())
    assert [p["program"] for p in comparison["programs"]] == ["train_loop", "staging_loop"]
    assert comparison["programs"][1]["options"][3]["bytes_measured"] == 9 * 2**20
    assert "| pageable (pageable) |" in (out / "comparison.md").read_text()


# A budget document of the trace's machine whose safe budget is below what the program holds: the
# verdict is "change", naming the budget, whatever the VRAM (exit 1).
def test_advise_above_the_safe_pin_budget_exits_1_naming_it(store, tmp_path, capsys):
    doc = json.loads(H100_BUDGET.read_text())
    doc["environment"] = json.loads((TRACES / "trace-dataloader-w4.json").read_text())["environment"]
    doc["safe_budget"]["bytes"] = 3 * 1024**3
    for f in doc["families"]:
        f["safe_budget"] = 3 * 1024**3
    budget = tmp_path / "budget.json"
    budget.write_text(json.dumps(doc))
    code = main(["advise", W4, "--store", store, *BENCH, "--budget", str(budget)])
    text = capsys.readouterr().out
    assert code == 1, text
    assert f"verdict: change: it holds 5.00 GiB pinned, 167% of the safe pin budget 3.00 GiB ({budget})" in text
    assert "ranked (bringing it under the safe pin budget, least copy speed lost first): over_allocation," in text
    assert main(["advise", W4, "--store", store, *BENCH, "--budget", str(budget), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)["program"]["verdict"]
    assert verdict["kind"] == "change" and verdict["best"] == "over_allocation"
    assert verdict["ranked_by"] == "bringing it under the safe pin budget, least copy speed lost first"
