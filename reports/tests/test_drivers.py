"""`pinreport drivers` (docs/drivers.md) on a store built by ci/driver_table_store.py from the
committed real H200 and H100 nights and budgets (older results schemas upgraded by the built
pinbench), plus replayed releases of scenarios/replay/ (labelled): each real release's cost per
pinned GiB, rule and reserve as `pinreport summary` prints them for the night that stands for it;
a release made to cost one granule more per GiB and a budget made smaller are REGRESSIONs;
replayed rows only with --replay, labelled on every row and point; the JSON against its schema.
Needs the built pinbench (PINBENCH_EXE): skipped without it, with the reason."""

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO_ROOT
from pinreport.base.schema import DRIVERS_SCHEMA_NAME, DRIVERS_SCHEMA_VERSION, drivers_json_schema_text

PINBENCH = os.environ.get("PINBENCH_EXE", "")
needs_pinbench = pytest.mark.skipif(
    not PINBENCH or not Path(PINBENCH).is_file(),
    reason="the driver table's store is built by the harness: set PINBENCH_EXE to a built pinbench",
)
# A replay runs a child per repeat: the tests replay the runs the table's verdict reads most
# (the overhead scenarios), ci/driver_table_store.py without --replay-only replays every run.
REPLAY_ONLY = ("nightly-overhead*",)


def _pinreport(*args: str, check_rc: int | None = 0) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "pinreport", *args], capture_output=True, text=True)
    if check_rc is not None:
        assert p.returncode == check_rc, p.stdout + p.stderr
    return p


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    if not PINBENCH or not Path(PINBENCH).is_file():
        pytest.skip("no built pinbench (PINBENCH_EXE)")
    root = tmp_path_factory.mktemp("drivers") / "store"
    cmd = [sys.executable, str(REPO_ROOT / "ci/driver_table_store.py"), str(root), "--pinbench", PINBENCH]
    cmd += [a for g in REPLAY_ONLY for a in ("--replay-only", g)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return root


@pytest.fixture(scope="module")
def table(store, tmp_path_factory) -> tuple[dict, str, Path]:
    out = tmp_path_factory.mktemp("drivers-out")
    p = _pinreport(
        "drivers", "--store", str(store), "--replay", "--json", str(out / "d.json"), "--html", str(out / "d.html")
    )
    return json.loads((out / "d.json").read_text()), p.stdout, out


def _rows(doc: dict) -> list[tuple[dict, dict]]:
    return [(g, r) for g in doc["groups"] for r in g["releases"]]


def _summary_lines(night: Path, tmp: Path) -> dict[tuple[str, str], tuple[str, str, str]]:
    """(api, gpus) -> (cost per pinned GiB, rule, reserve per GPU at 16GiB) as `pinreport summary`
    prints them for one stored night (decompressed: the bytes `pinbench store add` was given)."""
    plain = tmp / night.name.removesuffix(".gz")
    plain.write_bytes(gzip.decompress(night.read_bytes()))
    text = _pinreport("summary", str(plain)).stdout
    out, api = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (\S.*), (\d+) GPU\(s\): (.*?)(?: per pinned GiB .*)?$", line)
        if m:
            api = (m.group(1), m.group(2))
            cost = m.group(3)
            continue
        rule = re.match(r"^    rule [^:]*: (\S+)", line)
        if rule and api:
            rule_text = rule.group(1)
        reserve = re.search(r"16GiB: ([0-9.]+ \w+)", line)
        if reserve and api:
            out[api] = (cost, rule_text, reserve.group(1))
            api = None
    return out


def _table_lines(text: str, group: str, release: str) -> dict[tuple[str, str], tuple[str, str, str]]:
    """The same three of one row of `pinreport drivers`'s text."""
    out, inside = {}, False
    for line in text.splitlines():
        if not line.startswith(" "):
            current = line
            continue
        if line.startswith("  ") and not line.startswith("    "):
            inside = current.startswith(group) and line.strip().startswith(f"{release}:")
            continue
        m = re.match(
            r"^    (\S.*), (\d+) GPU\(s\): (.*?)(?: per pinned GiB .*)? on .*, rule (\S+), reserve at 16GiB (.*)$", line
        )
        if inside and m:
            out[(m.group(1), m.group(2))] = (m.group(3), m.group(4), m.group(5))
    return out


@needs_pinbench
def test_each_real_release_reads_as_summary_prints_its_night(table, tmp_path):
    doc, text, _ = table
    real = [(g, r) for g, r in _rows(doc) if not r["replayed"]]
    assert {g["gpu"] for g, _ in real} == {"nvidia-h200", "nvidia-h100-80gb-hbm3"}
    for g, r in real:
        summary = _summary_lines(Path(r["newest_night"]), tmp_path)
        label = f"{g['gpu']}, {g['gpu_count']}, {g['platform']}, driver model {g['driver_model']}"
        mine = _table_lines(text, label, r["release"])
        assert summary and mine == summary, (r["release"], g["gpu"])
        assert r["nights"] > 1  # every committed night of the release is counted; its newest stands for it


@needs_pinbench
def test_a_release_that_costs_one_granule_more_per_gib_is_a_regression(table):
    doc, text, _ = table
    rows = {(g["gpu"], r["release"]): r for g, r in _rows(doc)}
    more = rows[("nvidia-h200", "590.10")]
    assert more["replayed"] and more["verdict"]["verdict"] == "REGRESSION"
    assert more["verdict"]["against"] == "580.159.04"
    decided = more["verdict"]["decided_by"]
    assert decided["what"].startswith("cost.") and decided["change"].startswith("+64.00 KiB")
    same = rows[("nvidia-h200", "585.05")]
    assert same["verdict"]["verdict"] == "SAME" and same["verdict"]["decided_by"] is None
    real = rows[("nvidia-h200", "580.159.04")]
    assert real["verdict"]["verdict"] == "NO-BASELINE"  # a replayed release is never a baseline
    line = next(x for x in text.splitlines() if x.strip().startswith("[REPLAYED] 590.10"))
    assert "REGRESSION vs 580.159.04" in line


@needs_pinbench
def test_a_budget_made_smaller_is_a_regression(table):
    doc, _, _ = table
    rows = {(g["gpu"], r["release"]): r for g, r in _rows(doc)}
    smaller = rows[("nvidia-h100-80gb-hbm3", "590.10")]
    assert smaller["replayed"]
    assert [v["verdict"] for v in smaller["budget_verdicts"]] == ["REGRESSION", "REGRESSION"]
    assert smaller["verdict"]["verdict"] == "REGRESSION"
    assert smaller["verdict"]["decided_by"]["what"].startswith("safe budget ")
    # The real release's budget: the newest that found the driver's limit (later ones were capped).
    real = rows[("nvidia-h100-80gb-hbm3", "580.159.04")]
    assert real["budget"]["limit_found"] and real["budget"]["safe_budget"] == 6979321856


@needs_pinbench
def test_replayed_rows_only_when_asked_and_labelled_on_every_line_and_point(store, table, tmp_path):
    doc, text, out = table
    assert doc["replay_shown"] and any(r["replayed"] for _, r in _rows(doc))
    replayed_lines = [x for x in text.splitlines() if "590.10" in x or "585.05" in x or "581.42" in x]
    assert replayed_lines and all("[REPLAYED]" in x for x in replayed_lines)
    html = (out / "d.html").read_text()
    points = re.findall(r"<title>([^<]*)</title></circle>", html)
    assert points and all("[REPLAYED]" in p for p in points if "590.10" in p or "585.05" in p)
    assert "wddm" in html and "driver model linux" in html  # one GPU under two driver models, side by side
    plain = _pinreport("drivers", "--store", str(store), "--json", str(tmp_path / "p.json")).stdout
    only_real = json.loads((tmp_path / "p.json").read_text())
    assert not only_real["replay_shown"] and not any(r["replayed"] for _, r in _rows(only_real))
    assert "[REPLAYED]" not in plain and "wddm" not in plain


@needs_pinbench
def test_the_json_follows_its_schema_and_a_second_run_reads_no_night(store, table, tmp_path):
    doc, _, _ = table
    schema = json.loads(drivers_json_schema_text())
    assert schema["properties"]["schema"]["const"] == DRIVERS_SCHEMA_NAME
    assert schema["properties"]["version"]["const"] == DRIVERS_SCHEMA_VERSION
    jsonschema.Draft202012Validator(schema).validate(doc)
    before = {p: p.stat().st_mtime_ns for p in (store / "index").rglob("*.json")}
    _pinreport("drivers", "--store", str(store), "--replay")
    after = {p: p.stat().st_mtime_ns for p in (store / "index").rglob("*.json")}
    assert after == before  # nothing new read: no index rewritten


def test_bad_options_and_stores_are_refused_before_anything_is_read(tmp_path):
    p = _pinreport("drivers", "--store", str(tmp_path / "missing"), check_rc=2)
    assert "--store does not exist" in p.stderr
    (tmp_path / "s").mkdir()
    (tmp_path / "s/store.json").write_text('{"schema": "pinbench.store", "schema_version": 4}')
    p = _pinreport("drivers", "--store", str(tmp_path / "s"), "--report-url", "{nope}", check_rc=2)
    assert "--report-url" in p.stderr
    p = _pinreport("drivers", "--store", str(tmp_path / "s"), "--json", str(tmp_path / "out.json"))
    assert json.loads((tmp_path / "out.json").read_text())["groups"] == []
    assert "No stored night allows a row" in p.stdout
