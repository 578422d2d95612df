"""The driver table built in this process from a small store (builders.py, no harness needed):
pipeline/drivers.py's rows, and each output reading them (formats/drivers_console.py,
drivers_markdown.py, drivers_json.py, render/drivers_page.py): one wording, every replayed line
and point labelled, the JSON valid against its schema, the points linked to their nights."""

import copy
import json
import re
import subprocess
import sys
from functools import partial

import jsonschema
import pytest
from builders import GiB, MiB, add_budget_to_store, add_to_store, make_store, results_doc, run_doc, write_json
from conftest import REPO_ROOT
from pinreport.analysis.compare import CompareOptions
from pinreport.analysis.stats import load_libraries
from pinreport.base.schema import drivers_json_schema_text
from pinreport.formats import drivers_cells as cells
from pinreport.formats.drivers_console import format_drivers
from pinreport.formats.drivers_json import drivers_document
from pinreport.formats.drivers_markdown import format_drivers_markdown
from pinreport.pipeline.drivers import DERIVE, build_driver_table, group_value, memo_of, rows_of_value
from pinreport.render.drivers_page import drivers_context, night_link, render_drivers_html
from pinreport.store.reading import read_for_drivers

SIZES = (64 * MiB, GiB, 4 * GiB)
BUDGET = REPO_ROOT / "results/h100-budget/budget-as-limit.json"


def _night(release: str, day: int, per_gib: int = 2 * MiB, replayed: bool = False) -> dict:
    runs = [
        run_doc("q", api, size, costs={"cuda.free": [per_gib * size // GiB + 2 * MiB] * 5})
        for api in ("cudaMallocHost", "cudaHostRegister")
        for size in SIZES
    ]
    doc = results_doc(runs, release=release, started_at=f"2030-01-{day:02d}T02:00:00Z")
    if replayed:
        doc["backend"] = "replay"
        doc["replay"] = {"source": "real.json", "source_backend": "cuda", "script": "x.yaml", "note": "REPLAYED"}
        doc["environment"]["replayed"] = True
    return doc


def _budget(night: dict, safe: int, day: int) -> dict:
    doc = json.loads(BUDGET.read_text())
    doc["environment"] = copy.deepcopy(night["environment"])
    doc["started_at"] = f"2030-01-{day:02d}T03:00:00Z"
    for f in doc["families"]:
        if f["status"] == "ok":
            f["safe_budget"] = safe
    doc["safe_budget"]["bytes"] = safe
    return doc


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = make_store(tmp_path_factory.mktemp("s") / "store")
    for day, release in ((1, "570.10"), (2, "570.10"), (3, "580.20")):
        night = _night(release, day)
        add_to_store(root, night)
        add_budget_to_store(root, _budget(night, 6 * GiB if release == "570.10" else 4 * GiB, day))
    add_to_store(root, _night("590.10", 4, per_gib=4 * MiB, replayed=True))
    options = CompareOptions()
    values, problems = read_for_drivers(
        root, DERIVE, partial(group_value, options=options), memo_of(options, True), True
    )
    assert problems == [] and len(values) == 1
    again, _ = read_for_drivers(root, DERIVE, _never, memo_of(options, True), True)  # the group's memo
    assert again == json.loads(json.dumps(values))
    load_libraries()
    rows, problems = rows_of_value(values[0])
    return build_driver_table(str(root), [rows], problems, options, replay_shown=True)


def _never(histories):
    raise AssertionError("a group whose files did not change was read again")


def test_rows_newest_first_each_judged_against_the_real_release_before(table):
    rows = [(r.key.release, r.replayed, r.nights, r.verdict.verdict, r.verdict.against) for r in table.rows]
    assert rows == [
        ("590.10", True, 1, "REGRESSION", "580.20"),  # 2 MiB more per GiB
        ("580.20", False, 1, "REGRESSION", "570.10"),  # the budget shrank from 6 to 4 GiB
        ("570.10", False, 2, "NO-BASELINE", None),
    ]
    assert table.rows[1].verdict.decided_by.what == "safe budget cudaMallocHost"
    assert table.rows[0].budget is None and table.rows[1].budget.safe_budget == 4 * GiB
    assert table.problems == ()


def test_text_markdown_and_json_say_the_same_and_label_replayed_data(table):
    text = format_drivers(table)
    md = format_drivers_markdown(table)
    doc = drivers_document(table)
    jsonschema.Draft202012Validator(json.loads(drivers_json_schema_text())).validate(doc)
    newest = table.rows[0].newest.rows[0]
    assert f"{cells.cost_per_gib(newest)} per pinned GiB" in text and cells.cost_per_gib(newest) == "4.00 MiB"
    assert cells.cost_per_gib(newest) in md
    assert doc["groups"][0]["releases"][0]["apis"][0]["per_gib"] == pytest.approx(4 * MiB)
    assert all("[REPLAYED]" in line for line in text.splitlines() if "590.10" in line)
    replayed_block = text.split("[REPLAYED] 590.10:")[1].split("  580.20:")[0]
    assert all(line.startswith("    [REPLAYED] ") for line in replayed_block.strip("\n").splitlines()[1:])
    assert "| [REPLAYED] 590.10 |" in md
    assert format_drivers_markdown(table, max_releases=1).count("| 570.10 |") == 0


def test_the_page_links_every_point_to_its_night_and_labels_replayed_points(table):
    html = render_drivers_html(table, "https://ci.example/{gpu}/{release}/{time}.html")
    assert "https://ci.example/nvidia-h200/590.10/20300104T020000Z.html" in html
    points = re.findall(r'<a href="([^"]+)"><circle[^>]*><title>([^<]*)</title>', html)
    assert points and all(href.startswith("https://ci.example/") for href, _ in points)
    assert all("[REPLAYED]" in title for _, title in points if "590.10" in title)
    context = drivers_context(table)
    (gpu,) = context["gpus"]
    assert [c.id.split("-")[-1] for c in gpu["groups"][0]["charts"]] == ["cost", "budget"]
    row = table.rows[0]
    assert night_link(None, row.newest, "r-x") == "#r-x"


def test_the_nights_report_links_the_driver_table(tmp_path):
    root = make_store(tmp_path / "store")
    add_to_store(root, _night("570.10", 1))
    current = write_json(tmp_path / "current.json", _night("580.20", 3))
    cmd = [sys.executable, "-m", "pinreport", "html", "--store", str(root), "--current", str(current)]
    linked = subprocess.run(
        [*cmd, "--drivers-table", "drivers.html", "-o", str(tmp_path / "r.html")], capture_output=True
    )
    assert linked.returncode in (0, 1), linked.stderr
    assert '<p id="drivers-table">' in (tmp_path / "r.html").read_text()
    assert '<a href="drivers.html">the driver table</a>' in (tmp_path / "r.html").read_text()
    plain = subprocess.run([*cmd, "-o", str(tmp_path / "p.html")], capture_output=True)
    assert plain.returncode in (0, 1) and 'id="drivers-table"' not in (tmp_path / "p.html").read_text()
