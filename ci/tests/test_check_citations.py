"""ci/check_citations.py: every file a message or help text cites is shipped by the zip and the
wheel (issue 58, defect 3)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import check_citations  # noqa: E402


def test_every_cited_file_is_shipped_and_the_count_is_printed(capsys):
    assert check_citations.main([]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("check_citations: ") and " messages and help texts checked, " in first, out
    messages = int(first.split()[1])
    assert messages > 1000, first  # every string of both tools, not a sample


def test_the_messages_of_c67c4a8_are_caught():
    """The issue's examples, as c67c4a8 printed them: each names a file no install has."""
    zip_names, wheel_names = check_citations.shipped()
    old = [
        (
            "run",
            "no CUDA device here (x); nothing to measure. "
            'The replay backend needs no GPU: README.md, "The replay backend"',
        ),
        ("answer", "python3 -m pip install 'pinreport.whl' (README.md, \"pinreport\")"),
        ("advise", "build/<preset>/benchmarks/transfer_bench --benchmark_out=transfer_bench.json"),
        ("trace", "built without the CUPTI headers: ci/setup-debian.sh fetches them"),
    ]
    count, problems = check_citations.problems_of(old, zip_names, wheel_names)
    assert count == 4
    assert [p.split(":")[0] for p in problems] == ["run", "answer", "advise", "trace"]


def test_a_section_must_be_a_heading():
    _, problems = check_citations.problems_of(
        [("help", "docs/replay.md, 'No such section'"), ("ok", "docs/replay.md, 'Errors'")],
        *check_citations.shipped(),
    )
    assert problems == ["help: cites docs/replay.md, 'No such section', which has no such heading"]


def test_budget_schema_is_shipped():
    """`budget --help` cites docs/budget.schema.json, which c67c4a8's packages left out."""
    zip_names, wheel_names = check_citations.shipped()
    assert "docs/budget.schema.json" in zip_names and "docs/budget.schema.json" in wheel_names
