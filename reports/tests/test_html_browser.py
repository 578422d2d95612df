"""End-to-end: reports made from fixture stores, opened in headless Chromium (the system
browser, driven by Playwright). Skipped with the reason when Chromium or Playwright is absent;
CI installs both (Debian `chromium`, pip `playwright`; never `playwright install`)."""

import os
import shutil

import pytest
from pinreport.cli import main
from test_html_report import regression_store

CHROMIUM = os.environ.get("PINBENCH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def open_report(browser, path):
    """Opens the page with every request that is not file: or data: aborted and recorded."""
    page = browser.new_page()
    errors, outside = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def guard(route):
        url = route.request.url
        if url.startswith(("file:", "data:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.route("**/*", guard)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors, outside


def test_regression_report_in_chromium(browser, tmp_path, repo_root):
    store, current = regression_store(tmp_path)
    out = tmp_path / "report.html"
    bench = ["--bench", str(repo_root / "results/h200-bench/transfer_bench.json")]
    assert main(["html", "--store", str(store), "--current", str(current), "-o", str(out), *bench]) == 1
    page, errors, outside = open_report(browser, out)
    try:
        assert errors == []
        assert outside == []
        assert page.locator("#verdict").inner_text().startswith("REGRESSION")
        assert page.locator("#replayed").count() == 0
        flagged = page.locator("#verdict-table tr.flag")
        assert flagged.count() == 8
        assert flagged.first.locator("td.status").inner_text() == "REGRESSION"
        # the flagged row's link leads to a chart that exists, with one line per release and probe
        target = flagged.first.locator("a").get_attribute("href")
        chart = page.locator(target)
        assert chart.count() == 1
        assert chart.locator("svg g.series").count() == 4 == int(chart.get_attribute("data-series-count"))
        assert chart.locator("ul.legend li").count() == 4
        rule = page.locator("#rule-quick-overhead")
        assert rule.locator("svg rect.band").count() == 1
        assert rule.locator("svg g.series").count() == 3  # the api, its fit, its bound
        history = page.locator("#history-quick-overhead-cudaMallocHost")
        assert history.locator("svg line.vmark").count() == 1
        assert page.locator("#bandwidth-link svg g.series").count() == 6  # 2 pinned, 2 pageable, WC, mapped
        assert page.locator("li.not-measured").count() == 8  # every scenario kind but overhead
        assert page.locator("#claims-table tbody tr").count() == 14
        # the chart's table fallback holds its points
        chart.locator("summary").click()
        assert chart.locator("table.data tbody tr").count() == 8
    finally:
        page.close()


def test_replayed_report_in_chromium(browser, tmp_path):
    store, current = regression_store(tmp_path, extra=0, replay_of="results/h200-quick/results.json")
    out = tmp_path / "replayed.html"
    assert main(["html", "--store", str(store), "--current", str(current), "-o", str(out)]) == 0
    page, errors, outside = open_report(browser, out)
    try:
        assert errors == [] and outside == []
        banner = page.locator("#replayed")
        assert banner.is_visible() and "REPLAYED DATA" in banner.inner_text()
        assert page.locator("#verdict").inner_text().startswith("PASS")
        assert page.locator("#verdict-table tr.flag").count() == 0
    finally:
        page.close()


def test_the_guard_sees_requests_leaving_the_page(browser, tmp_path):
    """The checks above can fail: a page with an external image is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><img src="https://cdn.example.invalid/x.png"></body></html>')
    page, _, outside = open_report(browser, bad)
    page.close()
    assert outside == ["https://cdn.example.invalid/x.png"]
