"""Every kind's headline columns, rendered from REAL committed results: each headline metric of
the harness's catalog (data/metric_catalog.json) must show in the HTML report (the kind's table;
the overhead kind's in the verdict table) and in `pinreport compare`'s output. The register-window
timings once vanished from every report because Python asked for names the harness never wrote;
here the expected names come from the catalog and the files, never from the report's code."""

import html as html_escape
import json
import re

import pytest
from builders import document, make_store
from conftest import REPO_ROOT, upgraded
from pinreport.analysis.compare import compare, compared
from pinreport.base import catalog
from pinreport.base.units import format_value
from pinreport.formats.console import format_compare
from pinreport.pipeline.report import run_pipeline
from pinreport.readers.results import load_results
from pinreport.render.context import page_context
from pinreport.render.page import render_html
from pinreport.store.reading import read_store

# Together every kind and every headline metric: sweep.small_after_failure_ok exists only where a
# pin failed, the failure path of results/h200-pinnable.
REAL = (
    "results/h200-nightly-free-vram/results.json",
    "results/h200-pinnable/pinnable.json",
    "results/h200-gpu-tests-dataloader/pytorch-dataloader.json",
)
NOT_A_KIND = "*"


def _headlines() -> list[tuple[str, catalog.MetricSpec]]:
    return [(kind, s) for s in catalog.specs() if s.headline for kind in s.kinds if kind != NOT_A_KIND]


def _kind_of(run: dict) -> str:
    return run["plan"].get("kind", "overhead")


def _written(doc: dict, kind: str, spec: catalog.MetricSpec) -> dict[str, list[str]]:
    """run id -> the metrics of that ok run that the catalog entry names."""
    out = {}
    for run in doc["runs"]:
        if _kind_of(run) == kind and run.get("status") == "ok":
            names = sorted(n for n in run.get("metrics", {}) if spec.regex.match(n))
            if names:
                out[run["id"]] = names
    return out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """(path, document, HTML page, compare output) per real file, against an empty store."""
    store = read_store(make_store(tmp_path_factory.mktemp("store")))
    out = []
    for f in REAL:
        current = load_results(upgraded(REPO_ROOT / f))
        page = render_html(page_context(run_pipeline(current, store)))
        out.append((f, document(current), page, format_compare(compare(current, store))))
    return out


def _kind_table(page: str, kind: str) -> str:
    m = re.search(rf'<table class="kind-table" id="kind-table-{kind}">.*?</table>', page, re.S)
    return m.group(0) if m else ""


def missing_from_html(doc: dict, page: str) -> list[str]:
    """The (kind, headline) pairs a real file writes that its page does not show: in the kind's
    table a column of that name, with the run's median in the run's row; overhead has no table,
    its metrics are rows of the verdict table."""
    missing = []
    for kind, spec in _headlines():
        for run_id, names in _written(doc, kind, spec).items():
            if kind == "overhead":
                if not any(html_escape.escape(f"{run_id} · {n}") in page for n in names):
                    missing.append(f"{kind}: {spec.pattern} of {run_id} (verdict table)")
                continue
            table = _kind_table(page, kind)
            head, _, body = table.partition("</thead>")
            shown = [n for n in names if f"<code>{n}</code>" in head]
            row = re.search(rf"<tr[^>]*><td[^>]*>{re.escape(html_escape.escape(run_id))}</td>.*?</tr>", body, re.S)
            metric = next(r for r in doc["runs"] if r["id"] == run_id)["metrics"]
            values = [html_escape.escape(format_value(float(metric[n]["median"]), metric[n]["unit"])) for n in shown]
            if not shown or row is None or not any(v in row.group(0) for v in values):
                missing.append(f"{kind}: {spec.pattern} of {run_id}")
    return missing


def missing_from_compare(doc: dict, text: str) -> list[str]:
    """The headline metrics a real file writes that `pinreport compare` does not list under their
    run; compare lists what it judges (compare.compared: counts and set-up values are shown in the
    HTML report only)."""
    blocks: dict[str, str] = {}
    for part in re.split(r"\n  (?=\S)", text):
        run_id, _, rest = part.partition("\n")
        blocks[run_id.strip()] = rest
    missing = []
    for kind, spec in _headlines():
        for run_id, names in _written(doc, kind, spec).items():
            listed = {line.split()[0] for line in blocks.get(run_id, "").splitlines() if line.strip()}
            metric = next(r for r in doc["runs"] if r["id"] == run_id)["metrics"]
            judged = [n for n in names if compared(metric[n]["unit"], n)]
            missing += [f"{kind}: {n} of {run_id}" for n in judged if n not in listed]
    return missing


def test_the_real_files_hold_every_kinds_headlines():
    docs = [json.loads(upgraded(REPO_ROOT / f).read_text()) for f in REAL]
    uncovered = [f"{kind}: {s.pattern}" for kind, s in _headlines() if not any(_written(d, kind, s) for d in docs)]
    assert uncovered == [], "no committed real results file writes these headline metrics"
    assert len(_headlines()) >= 36  # the catalog's headline entries, each with its kind(s)


def test_every_headline_shows_in_the_html_report(rendered):
    for f, doc, page, _ in rendered:
        assert missing_from_html(doc, page) == [], f


def test_every_headline_shows_in_compare(rendered):
    for f, doc, _, text in rendered:
        assert missing_from_compare(doc, text) == [], f


def test_register_window_timings_appear(rendered):
    _, doc, page, text = rendered[0]
    table = _kind_table(page, "register_window")
    for name in ("time.kept_per_transfer_ms", "time.windowed_per_transfer_ms"):
        assert f"<code>{name}</code>" in table
        assert name in text


def test_the_checks_fail_when_a_headline_is_missing(rendered):
    _, doc, page, text = rendered[0]
    name = "time.windowed_per_transfer_ms"
    assert missing_from_html(doc, page.replace(f"<code>{name}</code>", "<code>dropped</code>"))
    assert missing_from_compare(doc, text.replace(name, "dropped"))
    assert missing_from_html(doc, page.replace("kind-table-capacity", "kind-table-gone"))
