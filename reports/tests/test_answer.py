"""The answer (answer.py) and its three formats: `pinreport summary` text (console.py), Markdown
(markdown.py) and the report's first screen (render/answer_section.py), on hand-made documents
whose fit is worked out by hand here, and on the committed real H200 results."""

import os
from pathlib import Path

import pytest
from builders import (
    GiB,
    MiB,
    add_to_store,
    disturb_metrics,
    disturb_run,
    document,
    make_store,
    results_doc,
    run_doc,
    write_json,
)
from conftest import upgraded
from pinreport.cli import main
from pinreport.formats.console import format_summary
from pinreport.formats.markdown import format_summary_markdown
from pinreport.pipeline.answer import COMPARED, FIRST_NIGHT, NO_STORE
from pinreport.pipeline.report import run_pipeline
from pinreport.readers.results import ResultsFile, load_results
from pinreport.render.context import page_context
from pinreport.render.page import render_html
from pinreport.store.reading import StoreContents, read_for_compare


def _current(doc):
    """A current results file as the commands read it (the store readers take a ResultsFile)."""
    return ResultsFile("current.json", doc)


REPO = Path(__file__).resolve().parents[2]


def _runs() -> list[dict]:
    """cudaMallocHost at 1 GiB: 3, 4, 5 MiB; at 3 GiB: 7, 8, 9 MiB (cudaMemGetInfo).
    By hand: slope (8 - 4) MiB / 2 GiB = 2 MiB per GiB, base 4 - 2 = 2 MiB; residuals -1, 0, +1
    at each size, so the residual sd is sqrt(4 MiB^2 / (6 - 2)) = 1 MiB."""
    return [
        run_doc(api="cudaMallocHost", size=1 * GiB, costs={"cuda.free": [3 * MiB, 4 * MiB, 5 * MiB]}, nonce="a"),
        run_doc(api="cudaMallocHost", size=3 * GiB, costs={"cuda.free": [7 * MiB, 8 * MiB, 9 * MiB]}, nonce="b"),
    ]


def _answer(doc: dict, path: str = "current.json", store: StoreContents | None = None):
    return run_pipeline(ResultsFile(path, doc), store or StoreContents(root=""), stored=store is not None).answer


def test_the_fit_rule_and_reserve_match_the_hand_derived_numbers() -> None:
    answer = _answer(results_doc(_runs()))
    (row,) = answer.headlines
    assert (row.api, row.gpus, row.family, row.runs) == ("cudaMallocHost", 1, "cuda.free", 2)
    assert row.per_gib == pytest.approx(2 * MiB)
    assert row.fit.base == pytest.approx(2 * MiB)
    assert row.fit.residual_sd == pytest.approx(1 * MiB)
    assert row.fit.n == 6
    # The rule: 4 MiB of 1 GiB (0.39%) and 8 MiB of 3 GiB (0.26%): far below 10%, OVER-RESERVED.
    assert row.rule == "OVER-RESERVED"
    assert row.rule_counts == (("OVER-RESERVED", 2),)
    assert row.ratio_range == pytest.approx((8 / 3072, 4 / 1024))
    # The reserve: the prediction bound, yhat + t(0.975, 4) * sd * sqrt(1 + 1/6 + (x - 2 GiB)^2 / Sxx),
    # Sxx = 6 * (1 GiB)^2; at 1 GiB: 4 MiB + 2.7764 * 1 MiB * sqrt(1 + 1/6 + 1/6) = 7.2058 MiB.
    reserves = {r.size: r for r in row.reserves}
    assert reserves[1 * GiB].per_gpu == pytest.approx(4 * MiB + 2.776445 * MiB * (4 / 3) ** 0.5, rel=1e-5)
    assert reserves[1 * GiB].notes == ()
    assert "extrapolated beyond the measured sizes" in reserves[16 * GiB].notes
    assert answer.changes.state == NO_STORE


def test_the_text_and_markdown_state_probe_repeats_and_spread() -> None:
    answer = _answer(results_doc(_runs()))
    text = format_summary(answer)
    assert "cudaMallocHost, 1 GPU(s): 2.00 MiB per pinned GiB (0.20%) on cudaMemGetInfo\n" in text
    assert "from 6 repeats of 2 run(s) at 1.00 GiB-3.00 GiB; spread (residual sd) 1.00 MiB\n" in text
    assert "rule 0.1-0.2: OVER-RESERVED (cost 0.26%-0.39% of the pinned bytes; OVER-RESERVED 2)" in text
    assert "reserve per GPU 1GiB: 7.21 MiB" in text
    assert "no store given" in text
    assert "Nothing failed, was waived or was disturbed." in text
    assert len(text.splitlines()) < 40  # one screen
    md = format_summary_markdown(answer)
    assert (
        "| cudaMallocHost | 1 | 2.00 MiB (0.20%) | cudaMemGetInfo | 6 (2) | 1.00 MiB | OVER-RESERVED (0.26%-0.39%) |"
        in md
    )


def test_a_disturbed_value_never_reaches_the_headline() -> None:
    runs = _runs()
    # A 2 GiB run whose cudaMemGetInfo another process moved by 100 MiB: left out of the fit.
    bad = run_doc(api="cudaMallocHost", size=2 * GiB, costs={"cuda.free": [100 * MiB] * 3}, nonce="c")
    disturb_metrics(bad, [m for m in bad["metrics"] if m.endswith("cuda.free")], ["pid 4242 allocated 96 MiB"])
    whole = disturb_run(
        run_doc(api="cudaHostRegister", size=1 * GiB, costs={"cuda.free": [900 * MiB] * 3}, nonce="d"),
        ["pid 4242 allocated 900 MiB"],
    )
    answer = _answer(results_doc([*runs, bad, whole]))
    (row,) = answer.headlines  # no cudaHostRegister row: its only run ended disturbed
    assert row.per_gib == pytest.approx(2 * MiB) and row.runs == 2
    assert answer.left_out == ("quick-overhead/cudaMallocHost/2GiB/x1/g1: 3 disturbed metric(s), left out of the fit",)
    text = format_summary(answer)
    assert "100.00 MiB" not in text and "900.00 MiB" not in text.split("Failed, disturbed or waived")[0]
    assert "disturbed: run quick-overhead/cudaHostRegister/1GiB/x1/g1: run disturbed" in text


def test_a_replayed_file_gives_no_headline_and_every_number_is_labelled() -> None:
    answer = _answer(results_doc(_runs(), replay_of="results/h200-quick/results.json"))
    assert answer.headlines == () and len(answer.replayed_rows) == 1
    text = format_summary(answer)
    assert all(line.startswith("[REPLAYED] ") for line in text.splitlines())
    assert "no headline" in text
    md = format_summary_markdown(answer)
    assert "**REPLAYED DATA**" in md and "| [REPLAYED] cudaMallocHost |" in md


def test_first_night_and_changes_since_the_previous_release(tmp_path: Path) -> None:
    def night(cost_at_1gib: int) -> list[dict]:
        return [
            run_doc(api="cudaMallocHost", size=1 * GiB, costs={"cuda.free": [cost_at_1gib] * 7}, nonce="a"),
            run_doc(api="cudaMallocHost", size=3 * GiB, costs={"cuda.free": [8 * MiB] * 7}, nonce="b"),
        ]

    store = make_store(tmp_path / "s")
    add_to_store(store, results_doc(night(4 * MiB), release="570.10"))
    doc = results_doc(night(30 * MiB), release="580.10", started_at="2025-07-01T10:00:00Z")
    answer = _answer(doc, store=read_for_compare(store, _current(doc)))
    assert answer.changes.state == COMPARED and answer.changes.release == "570.10"
    assert [(v.run_id, str(v.verdict)) for v in answer.changes.named][0] == (
        "quick-overhead/cudaMallocHost/1GiB/x1/g1",
        "REGRESSION",
    )
    assert "Since driver 570.10: " in format_summary(answer)
    first = results_doc(_runs(), release="590.1", gpu="NVIDIA B200")
    assert _answer(first, store=read_for_compare(store, _current(first))).changes.state == FIRST_NIGHT


def test_the_report_opens_with_the_answer(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    doc = results_doc(_runs())
    ctx = page_context(run_pipeline(ResultsFile("current.json", doc), StoreContents(root=str(store))))
    html = render_html(ctx)
    assert html.index('id="answer"') < html.index('id="claims-table"') < html.index('id="environment"')
    assert html.index('id="answer"') < html.index('id="verdict-table"')
    assert ctx["answer"]["rows"][0]["cost"] == "2.00 MiB"
    replayed = page_context(
        run_pipeline(ResultsFile("r.json", results_doc(_runs(), replay_of="x.json")), StoreContents(root=str(store)))
    )
    page = render_html(replayed)
    assert "No headline: REPLAYED DATA." in page and "[REPLAYED] cudaMallocHost" in page


def test_summary_command_writes_markdown_and_exits_as_compare(tmp_path: Path, capsys) -> None:
    path = write_json(tmp_path / "r.json", results_doc(_runs()))
    md = tmp_path / "summary.md"
    assert main(["summary", str(path), "--markdown", str(md)]) == 0
    assert "2.00 MiB per pinned GiB" in capsys.readouterr().out
    assert md.read_text().startswith("## pinbench answer: nvidia-h200 (1gpu, linux, linux), driver 580.65.06")
    assert main(["summary", str(tmp_path / "missing.json")]) == 2


@pytest.mark.skipif(not os.environ.get("PINBENCH_EXE"), reason="needs PINBENCH_EXE (results upgrade)")
def test_summary_of_the_committed_h200_quick_run() -> None:
    """The committed quick run: every repeat of a cudaMallocHost run reads the same on
    cudaMemGetInfo, so the fit is over six distinct points (x in GiB, y in MiB), each 7 times:
    (1/16, 0), (1/4, 0), (1, 2), (4, 8) (quick-overhead) and (1/16, 0), (4, 8) (quick-count x1, x64).
    By hand: mean x 9.375/6 = 1.5625, mean y 3, Sxy 37.875, Sxx 18.421875: slope 2.0560 MiB per
    GiB, base 3 - 2.0560 x 1.5625 = -0.2125 MiB. cudaHostAlloc:* have the four quick-overhead
    points only: mean x 1.328125, mean y 2.5, Sxy 20.71875, Sxx 10.0107421875: slope 2.0696.
    The rule: the largest ratio is 2 MiB / 1 GiB = 8 MiB / 4 GiB = 0.195%, far below 10%."""
    current = load_results(upgraded(REPO / "results" / "h200-quick" / "results.json"))
    answer = _answer(document(current), "results/h200-quick/results.json")
    rows = {r.api: r for r in answer.headlines}
    assert sorted(rows) == [
        "cudaHostAlloc:mapped",
        "cudaHostAlloc:portable",
        "cudaHostAlloc:write_combined",
        "cudaHostRegister",
        "cudaMallocHost",
    ]
    assert {r.gpus for r in rows.values()} == {1}
    mch = rows["cudaMallocHost"]
    assert mch.family == "cuda.free" and mch.fit.n == 42 and mch.runs == 6
    assert mch.per_gib == pytest.approx(37.875 / 18.421875 * MiB)
    assert mch.fit.base == pytest.approx((3 - 37.875 / 18.421875 * 1.5625) * MiB)
    assert rows["cudaHostAlloc:mapped"].per_gib == pytest.approx(20.71875 / 10.0107421875 * MiB)
    assert rows["cudaHostAlloc:mapped"].fit.n == 28
    for row in rows.values():
        assert row.rule == "OVER-RESERVED"
        assert row.ratio_range[1] == pytest.approx(2 / 1024)
    # The reserve at 4 GiB is the fit's value there plus the bound's half-width (above one
    # granule, 128 KiB): 8.0115 MiB + the width.
    at4 = {r.size: r for r in mch.reserves}[4 * GiB]
    assert 8.0115 * MiB + 128 * 1024 <= at4.per_gpu <= 8.5 * MiB
    assert answer.changes.state == NO_STORE
    assert answer.problems == () and answer.disturbed == () and answer.waived == ()
    text = format_summary(answer)
    assert "cudaMallocHost, 1 GPU(s): 2.06 MiB per pinned GiB (0.20%) on cudaMemGetInfo\n" in text
    assert "from 42 repeats of 6 run(s) at 64.00 MiB-4.00 GiB; spread (residual sd) 154.31 KiB\n" in text
    assert len(text.splitlines()) <= 30


@pytest.mark.skipif(not os.environ.get("PINBENCH_EXE"), reason="needs PINBENCH_EXE (results upgrade)")
def test_summary_of_the_committed_two_gpu_run_names_the_waived_runs_by_reason() -> None:
    current = load_results(upgraded(REPO / "results" / "h200x2-multi-gpu" / "results.json"))
    answer = _answer(document(current), "results/h200x2-multi-gpu/results.json")
    assert answer.headlines == ()  # multi_gpu runs are not fitted (fit.py: overhead, capacity, sweep)
    assert [w.split(" (e.g.")[0] for w in answer.waived] == [
        "25 runs: needs 4 GPU(s), this machine has 2",
        "25 runs: needs 8 GPU(s), this machine has 2",
    ]
    assert dict(answer.claim_counts())["REFUTED"] == 1  # claim 3: not every GPU pays


def test_rows_ambiguous_only_for_too_few_nights_are_grouped_not_listed_first(tmp_path: Path) -> None:
    def night(started_at: str) -> dict:
        runs = [run_doc(costs={"cuda.free": [2 * MiB] * 7}, timings={"alloc": [4.0 + 0.01 * i for i in range(7)]})]
        return results_doc(runs, started_at=started_at)

    store = make_store(tmp_path / "s")
    add_to_store(store, night("2025-05-31T10:00:00Z"))
    doc = night("2025-06-01T10:00:00Z")
    ctx = page_context(run_pipeline(ResultsFile("current.json", doc), read_for_compare(store, _current(doc))))
    few = [r for r in ctx["rows"] if r["few_nights"]]
    assert few and all(r["status"] == "AMBIGUOUS" and not r["shown"] for r in few)
    assert ctx["few_nights"] == len(few)
    html = render_html(ctx)
    shown = html[html.index('id="verdict-table"') : html.index('id="few-nights"')]
    assert "too few nights" not in shown
    assert f"{len(few)} rows AMBIGUOUS only for too few nights" in html
