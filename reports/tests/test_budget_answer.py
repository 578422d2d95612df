"""The budget in the answer (`summary --budget`, `html --budget`) and between releases
(`pinreport budget-compare`), against the committed H100 documents and the test double's."""

import copy
import json
import re

import pytest
from builders import document
from conftest import FIXTURES, REPO_ROOT
from pinreport.analysis.budget_compare import IMPROVEMENT, NOT_COMPARABLE, REGRESSION, SAME, compare_budgets
from pinreport.cli import main
from pinreport.pipeline.answer import budget_line
from pinreport.readers.budget import load_budget

H100 = REPO_ROOT / "results/h100-budget"
DOUBLE = REPO_ROOT / "reports/tests/fixtures/budget/double-poisons.json"
HELD_ONLY = REPO_ROOT / "reports/tests/fixtures/budget/double-poisons-held-only.json"  # --held-only, same script
CURRENT = FIXTURES / "current-580.65.06.json"
MIB = 1 << 20


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _variant(tmp_path, name, change):
    """The double's document (both families found the limit at 40 MiB held, 8 MiB chunks, safe
    budget 32 MiB) with `change` applied to each family."""
    doc = json.loads(DOUBLE.read_text())
    for f in doc["families"]:
        change(f)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _shrink(by):
    def change(f):
        f["safe_budget"] -= by
        f["held_at_once"]["bytes"] -= by

    return change


def test_budget_line_capped_says_at_least():
    line = budget_line(load_budget(H100 / "budget-default.json"))
    assert line.startswith("Pin budget (NVIDIA H100 80GB HBM3, driver 580.159.04, linux): ")
    assert "cudaMallocHost at least 12.75 GiB (capped at 16 GiB, the real limit is higher)" in line
    assert "no failure seen, pin 0.381 s/GiB, VRAM it costs 24.00 MiB" in line
    assert "cudaHostRegister at least 12.75 GiB" in line and "pin 0.0353 s/GiB" in line


def test_budget_line_limit_found_and_poisons():
    line = budget_line(load_budget(DOUBLE))
    assert "cudaMallocHost 32.00 MiB, a failure POISONS the process, pin 0.00136 s/GiB, VRAM it costs 64.00 KiB" in line
    assert "at least" not in line
    assert "driver 0.0-test-double" in line
    clean = budget_line(load_budget(H100 / "budget-as-limit.json"))
    assert "cudaMallocHost 6.50 GiB, a failure is clean" in clean


def test_a_budget_bounded_by_a_memory_limit_is_the_answer_not_a_lower_bound(tmp_path):
    words = "bounded by the container's limit, 6 GiB, 1.023 GiB in use (cgroup v2 /, memory.max)"

    def bounded(f, stop):
        f["limit_found"] = False
        f["held_at_once"].update(stopped_by=stop, words=words)

    for stop in ("memory_limit", "address_space"):
        line = budget_line(load_budget(_variant(tmp_path, f"{stop}.json", lambda f, stop=stop: bounded(f, stop))))
        assert f"cudaMallocHost 32.00 MiB ({words})" in line
        assert "at least" not in line
    capped = budget_line(load_budget(_variant(tmp_path, "cap.json", lambda f: bounded(f, "cap"))))
    assert f"cudaMallocHost at least 32.00 MiB ({words})" in capped


def test_budget_line_disturbed_vram_is_not_measured():
    line = budget_line(load_budget(H100 / "beside-neighbour/budget-device-burst.json"))
    assert line.count("VRAM not measured: disturbed") == 2
    assert "VRAM it costs" not in line


def test_summary_prints_the_budget_line_and_markdown_has_it(capsys, tmp_path):
    md = tmp_path / "s.md"
    code, out, _ = _run(capsys, "summary", CURRENT, "--budget", DOUBLE, "--markdown", md)
    assert code == 0
    lines = out.splitlines()
    assert lines[2].startswith(
        "Pin budget (pinbench test-double GPU, driver 0.0-test-double, linux): cudaMallocHost 32.00 MiB"
    )
    assert "Pin budget (pinbench test-double GPU" in md.read_text()
    code, out, _ = _run(capsys, "summary", CURRENT)
    assert code == 0 and "Pin budget" not in out


def _summary_budget_line(capsys, budget):
    code, out, err = _run(capsys, "summary", CURRENT, "--budget", budget)
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("Pin budget (")]
    assert len(lines) == 1, out
    return lines[0]


def test_summary_prints_the_same_budget_line_for_a_held_only_document(capsys, tmp_path):
    """The main job's answer shows only the safe budget, which --held-only measures as the full run
    does: the double's document made held-only (the single phase dropped, largest_single not
    measured) gives the same line, and so does the one the harness wrote with --held-only, but for
    the pin speed (its own timing)."""
    doc = json.loads(DOUBLE.read_text())
    doc["options"]["held_only"] = True
    for f in doc["families"]:
        f["phases"].pop("single")
        f["largest_single"] = {"bytes": None, "stopped_by": "not_measured", "words": "not measured (--held-only)"}
    derived = tmp_path / "held-only.json"
    derived.write_text(json.dumps(doc))
    full = _summary_budget_line(capsys, DOUBLE)
    assert "cudaMallocHost 32.00 MiB, a failure POISONS the process" in full
    assert _summary_budget_line(capsys, derived) == full
    speed = re.compile(r"pin [0-9.e-]+ s/GiB")
    written = _summary_budget_line(capsys, HELD_ONLY)
    assert speed.sub("pin _ s/GiB", written) == speed.sub("pin _ s/GiB", full)
    assert "not measured" not in written


def test_a_held_only_document_compares_by_its_safe_budget(capsys):
    """budget-compare judges the safe budget, which a held-only document measures as the full run
    does: the double's pair (the same limit) is SAME, never a regression or not comparable."""
    verdicts = compare_budgets(load_budget(DOUBLE), load_budget(HELD_ONLY))
    assert [(v.family, v.verdict) for v in verdicts] == [("cudaMallocHost", SAME), ("cudaHostRegister", SAME)]
    code, out, _ = _run(capsys, "budget-compare", HELD_ONLY, DOUBLE)
    assert code == 0 and "REGRESSION" not in out


@pytest.mark.parametrize("content", ["not json", '{"schema": "pinbench.results", "version": 1}'])
def test_a_bad_budget_is_one_line_exit_2(capsys, tmp_path, content):
    (tmp_path / "store").mkdir()
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for argv in (
        ["summary", CURRENT, "--budget", bad],
        # (an output inside the --store folder would be refused first: atomic_write.output_path)
        ["html", "--store", tmp_path / "store", "--current", CURRENT, "--budget", bad, "-o", tmp_path / "r.html"],
        ["budget-compare", DOUBLE, bad],
    ):
        code, out, err = _run(capsys, *argv)
        assert code == 2, argv
        assert err.count("\n") == 1 and err.startswith(f"error: {bad}"), err
    assert not (tmp_path / "r.html").exists()


def test_html_first_screen_has_the_budget(capsys, tmp_path):
    from builders import add_to_store, make_store
    from pinreport.readers.results import load_results

    store = make_store(tmp_path / "store")
    add_to_store(store, document(load_results(FIXTURES / "baseline-572.16.json")))
    page = tmp_path / "r.html"
    code, _, _ = _run(
        capsys, "html", "--store", store, "--current", CURRENT, "--budget", H100 / "budget-as-limit.json", "-o", page
    )
    assert code == 1  # the fixture's injected regression, as without --budget
    html = page.read_text()
    assert (
        '<p id="answer-budget"><b>Pin budget (NVIDIA H100 80GB HBM3, driver 580.159.04, linux): cudaMallocHost 6.50 GiB'
        in html
    )


def test_committed_h100_pair_is_not_comparable_never_a_regression(capsys):
    # as-limit found the limit (safe 6.5 GiB); the default run was capped at 16 GiB (safe >= 12.75 GiB).
    old, new = load_budget(H100 / "budget-default.json"), load_budget(H100 / "budget-as-limit.json")
    verdicts = compare_budgets(old, new)
    assert [(v.family, v.verdict) for v in verdicts] == [
        ("cudaMallocHost", NOT_COMPARABLE),
        ("cudaHostRegister", NOT_COMPARABLE),
    ]
    assert verdicts[0].why == "not comparable: capped (old capped at 16 GiB, the real limit is higher)"
    assert (verdicts[0].old, verdicts[0].new) == (13690208256, 6979321856)
    code, out, _ = _run(capsys, "budget-compare", H100 / "budget-default.json", H100 / "budget-as-limit.json")
    assert code == 0
    assert "NOT COMPARABLE cudaMallocHost: safe budget 12.75 GiB -> 6.50 GiB: not comparable: capped" in out
    # The other way round (a budget that grew past a capped one) is not comparable either.
    assert {v.verdict for v in compare_budgets(new, old)} == {NOT_COMPARABLE}


def test_both_at_the_limit_shrunk_by_more_than_a_chunk_is_a_regression(capsys, tmp_path):
    new = _variant(tmp_path, "new.json", _shrink(16 * MIB))  # 32 -> 16 MiB, chunk 8 MiB
    code, out, _ = _run(capsys, "budget-compare", DOUBLE, new)
    assert code == 1
    assert "REGRESSION cudaMallocHost: safe budget 32.00 MiB -> 16.00 MiB: shrank by more than one chunk" in out
    assert "2 regression(s) among 2 families" in out
    code, out, _ = _run(capsys, "budget-compare", new, DOUBLE)
    assert code == 0
    assert "IMPROVEMENT cudaHostRegister: safe budget 16.00 MiB -> 32.00 MiB" in out


def test_within_one_chunk_is_same(tmp_path):
    new = load_budget(_variant(tmp_path, "new.json", _shrink(8 * MIB)))  # exactly one chunk
    assert {v.verdict for v in compare_budgets(load_budget(DOUBLE), new)} == {SAME}
    bigger = load_budget(_variant(tmp_path, "big.json", _shrink(-9 * MIB)))
    assert {v.verdict for v in compare_budgets(load_budget(DOUBLE), bigger)} == {IMPROVEMENT}


@pytest.mark.parametrize("stop", ["cap", "time_limit", "host_available"])
def test_a_shrink_stopped_before_the_limit_is_not_comparable(tmp_path, stop):
    def capped(f):
        _shrink(24 * MIB)(f)
        f["limit_found"] = False
        f["held_at_once"].update(stopped_by=stop, words=f"stopped by {stop}")

    verdicts = compare_budgets(load_budget(DOUBLE), load_budget(_variant(tmp_path, "new.json", capped)))
    assert {v.verdict for v in verdicts} == {NOT_COMPARABLE}
    assert verdicts[0].why == f"not comparable: capped (new stopped by {stop})"
    assert REGRESSION not in {v.verdict for v in verdicts}


def test_a_family_without_an_answer_is_not_comparable(tmp_path):
    doc = json.loads(DOUBLE.read_text())
    failed = copy.deepcopy(doc)
    failed["families"][1] = {"family": "cudaHostRegister", "status": "failed", "phases": {}}
    path = tmp_path / "failed.json"
    path.write_text(json.dumps(failed))
    verdicts = compare_budgets(load_budget(DOUBLE), load_budget(path))
    assert [v.verdict for v in verdicts] == [SAME, NOT_COMPARABLE]
    assert verdicts[1].why == "not comparable: no answer in the new (failed)"


def test_an_output_over_the_budget_document_is_refused(capsys, tmp_path):
    budget = tmp_path / "budget.json"
    budget.write_bytes(DOUBLE.read_bytes())
    for argv in (
        ["summary", CURRENT, "--budget", budget, "--markdown", budget],
        ["html", "--store", tmp_path, "--current", CURRENT, "--budget", budget, "-o", budget],
    ):
        code, _, err = _run(capsys, *argv)
        assert code == 2, argv
        assert err.startswith("error: ") and err.count("\n") == 1
    assert budget.read_bytes() == DOUBLE.read_bytes()
