"""ci/nightly.sh and the store's budgets and driver table (docs/drivers.md): the night's budget is
stored beside its results and judged against the store's previous release (no --budget-baseline
needed), the driver table is published (drivers.html, .json, .md in --out, the Markdown in the job
summary) after the night is stored, and the night's report links to it. pinbench and pinreport are
stand-ins that log how they were called, so only the script's own steps are tested (a real
pinbench and pinreport: ci/tests/test_nightly_replay.py)."""

import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NIGHTLY = ROOT / "ci" / "nightly.sh"

FAKE_PINBENCH = """#!/usr/bin/env bash
# doctor/run/budget write their file; store add makes the store and logs what it stored.
echo "pinbench $*" >>"$LOG"
out=""; store=""
while (($#)); do
  case $1 in -o | --bundle) out=$2; shift ;; --store) store=$2; shift ;; esac
  shift
done
[[ -n $out ]] && echo '{"complete": true}' >"$out"
[[ -n $store ]] && mkdir -p "$store" && echo '{}' >"$store/store.json"
exit 0
"""

FAKE_PINREPORT = """#!/usr/bin/env bash
# Logs its arguments; drivers writes the Markdown it is asked for; budget-compare exits as told.
echo "pinreport $*" >>"$LOG"
if [[ $1 == drivers ]]; then
  while (($#)); do
    [[ $1 == --markdown ]] && printf '## pinbench driver table\\n| 590.10 | REGRESSION |\\n' >"$2"
    shift
  done
fi
[[ $1 == budget-compare ]] && exit "${BUDGET_COMPARE_EXIT:-0}"
exit 0
"""


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _night(tmp_path: Path, *extra: str, budget_compare_exit: int = 0) -> tuple[subprocess.CompletedProcess, Path, str]:
    log = tmp_path / "calls.log"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env.update(LOG=str(log), BUDGET_COMPARE_EXIT=str(budget_compare_exit))
    out = tmp_path / "out"
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--store", str(tmp_path / "store"), "--out", str(out), "--skip-build",
         "--skip-bench", "--fuzz-seconds", "0",
         "--pinbench", str(_script(tmp_path / "pinbench", FAKE_PINBENCH)),
         "--pinreport", str(_script(tmp_path / "pinreport", FAKE_PINREPORT)), *extra],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    return night, out, log.read_text()


def test_the_budget_is_stored_beside_the_results_and_judged_against_the_store(tmp_path):
    night, out, calls = _night(tmp_path)
    assert night.returncode == 0, night.stderr
    lines = calls.splitlines()
    store = str(tmp_path / "store")
    results_add = lines.index(f"pinbench store add {out}/results.json --store {store}")
    budget_add = lines.index(f"pinbench store add {out}/budget.json --store {store}")
    judged = lines.index(f"pinreport budget-compare {out}/budget.json --store {store}")
    assert results_add < budget_add < judged
    summary = (out / "summary.md").read_text()
    assert (
        "store add budget" in summary and "pinreport budget-compare (the store's previous release): exit 0" in summary
    )


def test_a_budget_that_shrank_since_the_stored_release_is_a_regression(tmp_path):
    night, out, _ = _night(tmp_path, budget_compare_exit=1)
    assert night.returncode == 1
    assert "REGRESSION" in (out / "summary.md").read_text()


def test_a_given_baseline_is_used_instead_of_the_store(tmp_path):
    baseline = tmp_path / "old-budget.json"
    baseline.write_text("{}")
    night, out, calls = _night(tmp_path, "--budget-baseline", str(baseline))
    assert night.returncode == 0, night.stderr
    assert f"pinreport budget-compare {baseline} {out}/budget.json" in calls
    assert "budget-compare " + f"{out}/budget.json --store" not in calls


def test_the_driver_table_is_published_after_the_night_is_stored_and_the_report_links_it(tmp_path):
    night, out, calls = _night(tmp_path, "--report-url", "https://ci.example/{release}/{time}.html")
    assert night.returncode == 0, night.stderr
    lines = calls.splitlines()
    drivers = next(i for i, x in enumerate(lines) if x.startswith("pinreport drivers "))
    assert drivers > max(i for i, x in enumerate(lines) if x.startswith("pinbench store add "))
    assert (
        f"--html {out}/drivers.html --json {out}/drivers.json --markdown {out}/drivers.md --max-releases 5 "
        "--report-url https://ci.example/{release}/{time}.html" in lines[drivers]
    )
    html = next(x for x in lines if x.startswith("pinreport html "))
    assert "--drivers-table drivers.html" in html
    summary = (out / "summary.md").read_text()
    assert "## pinbench driver table" in summary and "| 590.10 | REGRESSION |" in summary
    assert "pinreport drivers: exit 0" in summary
