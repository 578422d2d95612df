"""ci/main.sh's pin budget: on the GPU path it runs `pinbench budget -o OUT/budget.json` before the
answer (its held phase alone, --held-only; both phases with MAIN_SCOPE=quick) and passes it to
`pinreport summary` and `html` (one line each); under the replay backend it says why there is none.
The stand-ins of main_stand_in.py make the GPU path run without a GPU."""

import json

from main_stand_in import run_main

LINE = "Pin budget (pinbench test-double GPU, driver 0.0-test-double, linux): cudaMallocHost 32.00 MiB"


def test_main_gives_the_budget_line_in_the_answer_and_the_report(tmp_path):
    job, out, calls = run_main(tmp_path, budget_writes=True)
    assert job.returncode == 0, job.stderr
    assert f"pinbench budget -o {out / 'budget.json'} --held-only\n" in calls
    assert json.loads((out / "budget.json").read_text())["options"]["held_only"] is True
    lines = job.stdout.splitlines()
    assert any(x.startswith(LINE) for x in lines), job.stdout
    assert LINE in (out / "summary.md").read_text()
    assert f'<p id="answer-budget"><b>{LINE}' in (out / "report.html").read_text()


def test_main_without_a_budget_document_says_so_and_still_answers(tmp_path):
    job, out, _ = run_main(tmp_path, budget_writes=False)
    assert job.returncode == 0, job.stderr
    assert "pinbench: pinbench budget wrote no document (exit 3" in job.stdout
    assert "Pin budget" not in job.stdout
    assert "pinbench answer:" in job.stdout


def test_main_with_every_run_measures_the_largest_single_pin_too(tmp_path):
    job, out, calls = run_main(tmp_path, env={"MAIN_SCOPE": "quick"})
    assert job.returncode == 0, job.stderr
    assert f"pinbench budget -o {out / 'budget.json'}\n" in calls
    assert "held_only" not in json.loads((out / "budget.json").read_text())["options"]
    assert any(x.startswith(LINE) for x in job.stdout.splitlines()), job.stdout
