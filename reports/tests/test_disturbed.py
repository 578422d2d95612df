"""No verdict on a disturbed probe (disturbance.py), exit 3, evidence shown."""

import math

from builders import (
    GiB,
    MiB,
    add_to_store,
    disturb_metrics,
    disturb_probe_in_ok_repeats,
    disturb_run,
    document,
    make_store,
    results_doc,
    run_doc,
    write_json,
)
from pinreport.analysis.compare import compare
from pinreport.analysis.disturbance import disturbed_metrics, negative_beyond_noise
from pinreport.analysis.rule import Band, RuleVerdict, rule_results
from pinreport.analysis.stats import Verdict
from pinreport.cli import main
from pinreport.formats.console import format_compare
from pinreport.formats.junit import build_junit
from pinreport.pipeline.report import run_pipeline
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Metric, Run
from pinreport.render.context import page_context
from pinreport.render.page import render_html
from pinreport.store.reading import StoreContents, read_store

EVIDENCE = "pid 4242 (python3) nvml used 1.50 GiB -> 1.75 GiB at +1.20 s inside repeat 2 (between steps)"


def _current(runs, **kw):
    return ResultsFile("current.json", results_doc(runs, started_at="2025-06-02T10:00:00Z", **kw))


def _store(tmp_path, runs):
    root = make_store(tmp_path / "store")
    add_to_store(root, results_doc(runs, started_at="2025-06-01T10:00:00Z"))
    return read_store(root)


def _neighbour_run():
    """The issue's run: cudaMallocHost 4 GiB beside a neighbour that freed device memory."""
    costs = [c * MiB for c in (-442, -524, 48, -400, -460, -442, -300)]
    return run_doc(size=4 * GiB, costs={"cuda.free": costs}, timings={"alloc": [100.0] * 7})


def test_negative_cost_beyond_a_granule_is_a_disturbed_probe_not_nothing_used():
    """Before: OVER-RESERVED ratio -0.1079 +- 0.0000 (nothing used), exit 0."""
    report = compare(_current([_neighbour_run()]), StoreContents(root="none"))
    (r,) = [r for r in report.rule if r.key == "cuda.free"]
    assert r.verdict == RuleVerdict.NOT_JUDGED
    assert r.reason.startswith(
        "disturbed: disturbed probe cuda.free: "
        "cost.after_alloc.cuda.free reads -524.00 MiB in a repeat (median -442.00 MiB)"
    )
    assert report.exit_code() == 3
    text = format_compare(report)
    assert "nothing used" not in text and "OVER-RESERVED" not in text
    assert "1 run disturbed: no verdict on them (0 ended disturbed, 1 with disturbed probes" in text
    cost = [v for v in report.verdicts if v.metric == "cost.after_first_use.cuda.free"]
    assert {v.verdict for v in cost} == {Verdict.NOT_JUDGED}
    # the timing of the same run is not about the disturbed probe: it is still compared
    assert {v.verdict for v in report.verdicts if v.metric == "time.alloc_ms"} == {Verdict.NO_BASELINE}


def test_negative_cost_within_one_granule_is_noise_and_judged():
    m = {"unit": "bytes", "n": 7, "median": -2 * MiB, "min": -2 * MiB, "max": 0, "mad": 0, "granule": 2 * MiB}
    assert negative_beyond_noise(Metric.from_json("cost.after_first_use.cuda.free", m)) is None
    run = run_doc(size=4 * GiB, costs={"cuda.free": [-2 * MiB] * 7})
    assert disturbed_metrics(Run.from_json(run)) == {}
    (r,) = [r for r in rule_results(Run.from_json(run), Band()) if r.key == "cuda.free"]
    assert r.verdict == RuleVerdict.OVER_RESERVED
    # granule unknown: 2 MiB of slack (pinbench's default tolerance), not 1 byte
    m["granule"], m["min"] = None, -3 * MiB
    assert "2.00 MiB (granule unknown)" in negative_beyond_noise(Metric.from_json("cost.after_first_use.cuda.free", m))


def test_rule_uncertainty_includes_the_mad_of_the_repeats():
    """Before: one granule / pinned alone (+- 0.0000 beside a MAD of 82 MiB)."""
    run = run_doc(size=4 * GiB, costs={"cuda.free": [c * MiB for c in (2, 4, 6, 8, 10, 12, 14)]})
    (r,) = [r for r in rule_results(Run.from_json(run), Band()) if r.key == "cuda.free"]
    assert run["metrics"]["cost.after_first_use.cuda.free"]["mad"] == 4 * MiB
    assert r.uncertainty == (2 * MiB + 4 * MiB) / (4 * GiB)
    assert math.isclose(r.uncertainty, 0.00146484375)
    assert "MAD of 4.00 MiB" in r.reason


def test_disturbed_run_is_never_judged_and_exits_3(tmp_path):
    base = [run_doc(costs={"cuda.free": [2 * MiB] * 7}, timings={"alloc": [10.0] * 7})]
    # the disturbed run's numbers would be a REGRESSION if they were judged
    cur = disturb_run(run_doc(costs={"cuda.free": [300 * MiB] * 7}, timings={"alloc": [90.0] * 7}), [EVIDENCE])
    report = compare(_current([cur]), _store(tmp_path, base))
    assert report.verdicts and {v.verdict for v in report.verdicts} == {Verdict.NOT_JUDGED}
    assert all(EVIDENCE in v.comparison.reason for v in report.verdicts)
    assert report.rule == [] and report.regressions == []
    assert report.exit_code() == 3
    (d,) = report.disturbed
    assert d.whole_run and d.attempts == 3 and d.evidence == (EVIDENCE,)
    text = format_compare(report)
    assert "REGRESSION" not in text
    assert f"run {cur['id']}: run disturbed after 3 attempt(s): {EVIDENCE}" in text
    assert "1 run disturbed: no verdict on them (1 ended disturbed" in text
    junit = build_junit(report).getroot()
    (case,) = [c for c in junit.iter("testcase") if c.get("name") == "disturbed"]
    assert EVIDENCE in case.find("error").get("message")
    assert not [c for c in junit.iter("testcase") if c.find("failure") is not None]


def test_metric_marked_disturbed_in_an_ok_run_is_not_judged_the_rest_is(tmp_path):
    base = [run_doc(costs={"cuda.free": [2 * MiB] * 7, "nvml.0.used": [2 * MiB] * 7})]
    cur = run_doc(costs={"cuda.free": [2 * MiB] * 7, "nvml.0.used": [40 * MiB] * 7})
    disturb_metrics(cur, [f"{s}.nvml.0.used" for s in ("cost.after_alloc", "cost.after_first_use")], [EVIDENCE])
    report = compare(_current([cur]), _store(tmp_path, base))
    by = {(v.metric, v.kind): v.verdict for v in report.verdicts}
    assert by[("cost.after_first_use.nvml.0.used", "history")] == Verdict.NOT_JUDGED
    assert by[("cost.after_first_use.cuda.free", "history")] == Verdict.SAME
    rule = {r.key: r for r in report.rule}
    assert rule["nvml.0.used"].verdict == RuleVerdict.NOT_JUDGED and EVIDENCE in rule["nvml.0.used"].reason
    assert rule["cuda.free"].verdict == RuleVerdict.OVER_RESERVED
    assert report.exit_code() == 3


def test_disturbed_baseline_samples_are_left_out(tmp_path):
    clean = run_doc(costs={"cuda.free": [2 * MiB] * 7})
    noisy = disturb_metrics(
        run_doc(costs={"cuda.free": [200 * MiB] * 7}),
        ["cost.after_alloc.cuda.free", "cost.after_first_use.cuda.free"],
        [EVIDENCE],
    )
    root = make_store(tmp_path / "store")
    add_to_store(root, results_doc([clean], started_at="2025-06-01T10:00:00Z"))
    add_to_store(root, results_doc([noisy], started_at="2025-06-01T11:00:00Z"))
    report = compare(_current([run_doc(costs={"cuda.free": [2 * MiB] * 7})]), read_store(root))
    (v,) = [v for v in report.verdicts if v.metric == "cost.after_first_use.cuda.free" and v.kind == "history"]
    assert v.verdict == Verdict.SAME
    assert v.comparison.n_baseline == 7  # the clean night only; pooled with the disturbed one it would be 14
    assert report.exit_code() == 0


def test_html_shows_disturbed_runs_and_their_evidence(tmp_path):
    cur = disturb_run(run_doc(costs={"cuda.free": [300 * MiB] * 7}), [EVIDENCE])
    context = page_context(run_pipeline(_current([cur]), _store(tmp_path, [run_doc()])))
    assert context["verdict"] == "DISTURBED" and context["exit_code"] == 3
    html = render_html(context)
    assert 'id="disturbed"' in html and EVIDENCE.replace(">", "&gt;") in html
    assert "1 run disturbed: no verdict on them" in html
    rows = [r for r in context["rows"] if r["status"] == "NOT JUDGED"]
    assert rows and all(r["shown"] for r in rows)


def test_cli_exits_3_with_the_evidence(tmp_path, capsys):
    root = make_store(tmp_path / "store")
    add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"))
    cur = write_json(tmp_path / "c.json", document(_current([_neighbour_run()])))
    code = main(["compare", "--store", str(root), "--current", str(cur)])
    out = capsys.readouterr().out
    assert code == 3
    assert "Disturbed by another process: NOT JUDGED" in out
    assert "memory came back that this repeat never took" in out


def test_brief_claims_take_no_evidence_from_a_disturbed_run():
    from builders import kind_run
    from pinreport.claims.evidence import ok_runs

    runs = [
        kind_run(
            "workers",
            {
                "workers.context_per_worker.cuda.free": [500 * MiB] * 7,
                "workers.pinned_per_worker.cuda.free": [2 * MiB] * 7,
            },
            {"workers": w, "variant": "per_process"},
            size=256 * MiB,
        )
        for w in (1, 4)
    ]
    assert len(ok_runs(ResultsFile("results.json", results_doc(runs)).runs, "workers")) == 2
    disturb_metrics(runs[1], ["workers.context_per_worker.cuda.free"], [EVIDENCE])
    assert [r.id for r in ok_runs(ResultsFile("results.json", results_doc(runs)).runs, "workers")] == [runs[0]["id"]]


def test_an_ok_run_whose_repeats_carry_the_evidence_shows_it(tmp_path, capsys):
    """Under the test double, `summary` said `disturbed ... no evidence
    recorded` of two ok runs whose every repeat carried evidence: the evidence of a probe moved
    in an ok repeat is on the repeat (the run's disturbance is null: no attempt was disturbed)."""
    run = run_doc(costs={"cuda.free": [2 * MiB] * 7, "nvml.0.used": [2 * MiB] * 7})
    disturb_probe_in_ok_repeats(run, "nvml.0.used", [EVIDENCE])
    why = disturbed_metrics(Run.from_json(run))
    assert set(why) == {m for m in run["metrics"] if m.endswith(".nvml.0.used")}
    assert all(EVIDENCE + " (repeat 0)" in w and "no evidence recorded" not in w for w in why.values()), why
    assert all("(and 4 more)" in w for w in why.values()), "3 of the 7 repeats' texts, the rest counted"
    cur = write_json(tmp_path / "c.json", results_doc([run], started_at="2025-06-02T10:00:00Z"))
    main(["summary", str(cur)])
    out = capsys.readouterr().out
    assert "no evidence recorded" not in out
    assert f"pinbench marked this probe disturbed: {EVIDENCE} (repeat 0)" in out, out


def test_the_disturbed_metrics_computed_once_give_what_each_reader_computed_alone():
    """compare hands a run's disturbed metrics to the rule and to of_run (disturbance.keys_of):
    the same results as when each reads the run again."""
    from pinreport.analysis.disturbance import disturbed_keys, keys_of, of_run

    run = Run.from_json(run_doc(size=4 * GiB, costs={"cuda.free": [-64 * MiB] * 7, "nvml.0.used": [8 * MiB] * 7}))
    bad = disturbed_metrics(run)
    assert bad and keys_of(bad) == disturbed_keys(run) and set(keys_of(bad)) == {"cuda.free"}
    assert rule_results(run, Band(), bad) == rule_results(run, Band())
    assert of_run(run, bad) == of_run(run) and of_run(run, bad).metrics == tuple(sorted(bad))
