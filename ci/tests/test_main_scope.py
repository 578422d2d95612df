"""ci/main.sh's scope: by default it measures the answer's runs only (`pinbench run
scenarios/quick.yaml --only quick-overhead/*`) and ends by saying how to check the other
claims under test; MAIN_SCOPE=quick measures every run of quick.yaml, as before; an unknown MAIN_SCOPE is
refused before anything runs. The stand-ins of main_stand_in.py make the GPU path run without a
GPU."""

from main_stand_in import run_main

HINT = "the other claims under test: MAIN_SCOPE=quick ci/main.sh (every kind of scenarios/quick.yaml,"


def _run_call(calls: str) -> list[str]:
    runs = [line.split() for line in calls.splitlines() if line.startswith("pinbench run ")]
    assert len(runs) == 1, calls
    return runs[0]


def _only_at(run: list[str]) -> int:
    assert run.count("--only") == 1, run
    return run.index("--only")


def test_main_measures_the_answers_runs_by_default(tmp_path):
    job, _, calls = run_main(tmp_path)
    assert job.returncode == 0, job.stderr
    run = _run_call(calls)
    assert run[:3] == ["pinbench", "run", "scenarios/quick.yaml"], run
    assert run[_only_at(run) : _only_at(run) + 2] == ["--only", "quick-overhead/*"], run
    # The controls are the run's own: no doctor before it making them a second time.
    assert not any(line.startswith("pinbench doctor") for line in calls.splitlines()), calls


def test_main_scope_quick_measures_every_run_of_quick_yaml(tmp_path):
    # The same call as the default's without --only: the same file, run ids, output and eta.
    _, _, calls = run_main(tmp_path / "answer")
    answer = _run_call(calls)
    at = _only_at(answer)
    job, _, calls = run_main(tmp_path / "quick", env={"MAIN_SCOPE": "quick"})
    assert job.returncode == 0, job.stderr
    whole = _run_call(calls)
    assert "--only" not in whole, whole
    assert [x.replace(str(tmp_path / "answer"), "T") for x in answer[:at] + answer[at + 2 :]] == [
        x.replace(str(tmp_path / "quick"), "T") for x in whole
    ]


def test_main_says_how_to_check_the_other_claims_only_after_the_answers_runs(tmp_path):
    job, out, _ = run_main(tmp_path / "answer")
    assert job.returncode == 0, job.stderr
    lines = job.stdout.splitlines()
    hints = [i for i, line in enumerate(lines) if line.startswith(HINT)]
    assert len(hints) == 1, job.stdout
    assert any(line.startswith("pinbench answer:") for line in lines[: hints[0]]), job.stdout
    # After the answer, before the report's and the summary's paths; the exit line last.
    assert lines[hints[0] + 1 :] == [
        f"HTML report: {out / 'report.html'}",
        f"summary: {out / 'summary.md'}; results: {out / 'quick.json'}",
        lines[-1],
    ], lines[hints[0] :]
    assert lines[-1].startswith("ci/main.sh: exit 0 after "), lines[-1]

    job, out, _ = run_main(tmp_path / "quick", env={"MAIN_SCOPE": "quick"})
    assert job.returncode == 0, job.stderr
    lines = job.stdout.splitlines()
    assert not any(line.startswith(HINT) for line in lines), job.stdout
    assert lines[-3:-1] == [
        f"HTML report: {out / 'report.html'}",
        f"summary: {out / 'summary.md'}; results: {out / 'quick.json'}",
    ], lines[-4:]


def test_main_refuses_an_unknown_scope_before_running_anything(tmp_path):
    job, out, calls = run_main(tmp_path, env={"MAIN_SCOPE": "everything"})
    assert job.returncode == 2, job.stdout + job.stderr
    assert job.stderr.splitlines() == [
        "ci/main.sh: MAIN_SCOPE=everything is not a scope: answer (the default: the answer's runs) "
        "or quick (every run of scenarios/quick.yaml)"
    ]
    assert calls == ""
    assert not out.exists()
    assert job.stdout.splitlines() == ["ci/main.sh: exit 2 after 0 s"]


def test_an_unknown_scope_with_a_terminal_escape_and_a_newline_is_shown_as_one_escaped_line(tmp_path):
    job, _, calls = run_main(tmp_path, env={"MAIN_SCOPE": "\x1b[2J\nquick"})
    assert job.returncode == 2, job.stdout + job.stderr
    assert job.stderr.splitlines() == [
        "ci/main.sh: MAIN_SCOPE=$'\\E[2J\\nquick' is not a scope: answer (the default: the answer's runs) "
        "or quick (every run of scenarios/quick.yaml)"
    ]
    assert calls == ""
