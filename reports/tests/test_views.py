"""pipeline/views.py: the numbers the page draws, computed by the pipeline (the renderers only lay
them out): the kinds' tables and chart points, the cost and history curves, the rule's fit lines
and the reserve table, against hand-computed values."""

from builders import GiB, MiB, churn_run, kinds_doc, results_doc, run_doc
from pinreport.analysis.fit import fit_all
from pinreport.analysis.history import Night
from pinreport.analysis.rule import Band, rule_results
from pinreport.pipeline.views import (
    RESERVE_SIZES,
    cost_views,
    kind_views,
    kinds_not_measured,
    nights_view,
    reserve_rows,
    rule_views,
)
from pinreport.readers.results import ResultsFile


def _file(runs, release="580.65.06", started_at="2025-06-01T10:00:00Z"):
    return ResultsFile("r.json", results_doc(runs, release=release, started_at=started_at))


def _sweep():
    return [run_doc(size=s * GiB, costs={"cuda.free": [16 * MiB + s * GiB // 8] * 3}) for s in (1, 2, 4)]


def test_the_reserve_and_the_rule_line_come_from_the_fit():
    f = _file(_sweep())
    fits = fit_all([(f.environment.key, f.runs)])
    (row,) = reserve_rows(fits, f.environment.key)
    assert row.api == "cudaMallocHost" and row.family == "cuda.free"
    # cost = 16 MiB + 0.125 x pinned, exactly: the bound is one 2 MiB granule above it.
    assert row.per_gpu == tuple((s, 16 * MiB + s / 8 + 2 * MiB) for s in RESERVE_SIZES)
    rule = [r for run in f.runs for r in rule_results(run, Band())]
    (view,) = rule_views(rule, fits)
    assert view.key == "cuda.free" and [api for api, _ in view.ratios] == ["cudaMallocHost"]
    assert view.fit is not None and view.fit.reserve == (4 * GiB, (16 * MiB + 4 * GiB / 8 + 2 * MiB) / (4 * GiB))


def test_the_cost_and_history_curves_per_release_and_night():
    old = _file(_sweep(), release="572.16", started_at="2025-05-01T10:00:00Z")
    new = _file(_sweep(), release="580.65.06")
    nights = [Night("2025-05-01 10:00", "572.16", old, False), Night("2025-06-01 10:00", "580.65.06", new, False)]
    (cost,) = cost_views(nights)
    assert cost.axis == "size" and [(r, k) for r, k, _ in cost.curves] == [
        ("572.16", "cuda.free"),
        ("580.65.06", "cuda.free"),
    ]
    assert cost.curves[0][2][0] == (1.0 * GiB, 16 * MiB + GiB / 8)
    view = nights_view(nights)
    assert view.labels == ("2025-05-01 10:00", "2025-06-01 10:00") and view.changes == ((1, "580.65.06"),)
    (history,) = view.histories
    assert [c.size for c in history.curves] == [1 * GiB, 2 * GiB, 4 * GiB]
    assert history.curves[0].points == ((0.0, 16 * MiB + GiB / 8), (1.0, 16 * MiB + GiB / 8))


def test_each_kind_present_has_its_table_and_chart_points():
    doc = kinds_doc()
    f = ResultsFile("k.json", doc)
    views = {v.kind: v for v in kind_views(f.runs)}
    assert "churn" in views and "overhead" not in views
    churn = views["churn"]
    assert churn.rows and all(len(r.cells) == len(churn.columns) for r in churn.rows)
    assert churn.families and churn.churn, "the churn trace's points are the pipeline's"
    assert kinds_not_measured(f.runs) == ()
    lone = _file([churn_run([1.0, 2.0, 3.0], 4.0)])
    ((c,),) = [v.churn for v in kind_views(lone.runs)]
    assert c.runs[0].trace == ((1.0, 1.0 * MiB), (2.0, 2.0 * MiB), (3.0, 3.0 * MiB))
    assert c.runs[0].final == (4.0, 4.0 * MiB)
