"""ci/check_test_mirror.py: clean on the tree, and failing, with what to add or remove, on a
source without a test, a stale row and a covering test that no longer mentions its source."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "ci" / "check_test_mirror.py"


def _run(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(CHECK), "--root", str(root)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The parts of the checkout the check reads, copied so that a test may change them."""
    for part in (
        "docs/tests.md",
        "harness/src",
        "harness/cli",
        "harness/include",
        "harness/tests",
        "reports/pinreport",
        "reports/tests",
    ):
        source, target = ROOT / part, tmp_path / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "fixtures", "written_by_cpp"))
        else:
            shutil.copy(source, target)
    return tmp_path


def _counts(stdout: str) -> str:
    return "\n".join(line for line in stdout.splitlines() if line.startswith("test mirror:"))


def test_the_tree_is_clean_and_the_counts_are_printed():
    result = _run(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test mirror: C++: " in result.stdout
    assert "test mirror: Python: " in result.stdout
    assert 'untested-source list (docs/tests.md, "Not tested yet"): ' in result.stdout


def test_a_new_source_without_a_test_fails_saying_what_to_add(tree: Path):
    (tree / "harness/src/run/new_thing.cpp").write_text("int x;\n")
    (tree / "reports/pinreport/analysis/new_model.py").write_text("def f():\n    return 1\n")
    result = _run(tree)
    assert result.returncode == 1
    assert (
        "harness/src/run/new_thing.cpp: no test named after it. Add harness/tests/cpu/new_thing_test.cpp "
        '(gpu/ where it needs a GPU), or a row "| `harness/src/run/new_thing.cpp` | `TEST FILE` |" to '
        'docs/tests.md\'s table "Covered by another test" naming the test(s) that cover it (each must name '
        "`new_thing`)"
    ) in result.stdout
    assert (
        "reports/pinreport/analysis/new_model.py: no test named after it. Add reports/tests/test_new_model.py "
        "(or test_analysis_new_model.py)"
    ) in result.stdout
    assert "2 finding(s)" in result.stdout

    # The test it asks for clears it.
    (tree / "harness/tests/cpu/new_thing_test.cpp").write_text("// new_thing\n")
    (tree / "reports/tests/test_new_model.py").write_text("from pinreport.analysis import new_model\n")
    assert _run(tree).returncode == 0


def test_a_test_of_the_same_name_that_imports_another_module_does_not_count(tree: Path):
    (tree / "reports/pinreport/render/charts/stats.py").write_text("def f():\n    return 1\n")
    result = _run(tree)
    assert result.returncode == 1
    assert (
        "reports/pinreport/render/charts/stats.py: no test named after it (reports/tests/test_stats.py has its "
        "name but does not import `pinreport.render.charts.stats`). Add reports/tests/test_stats.py "
        "(or test_charts_stats.py)"
    ) in result.stdout


def test_rows_that_went_stale_fail(tree: Path):
    table = tree / "docs/tests.md"
    text = table.read_text()
    # A removed source, a covering test that no longer includes the header, a source that now has
    # its own test.
    (tree / "harness/src/store/gzip.cpp").unlink()
    trace_test = tree / "harness/tests/cpu/trace_test.cpp"
    trace_test.write_text(trace_test.read_text().replace("pin_event.hpp", "other.hpp"))
    (tree / "harness/tests/cpu/temp_directory_test.cpp").write_text("// temp_directory\n")
    table.write_text(text)
    result = _run(tree)
    assert result.returncode == 1
    assert (
        'docs/tests.md, "Covered by another test": `harness/src/store/gzip.cpp` is no source (renamed or '
        "removed?): remove its row or write its new path"
    ) in result.stdout
    assert (
        'docs/tests.md, "Covered by another test": `harness/src/cuda/pin_event.cpp`: its test '
        "`harness/tests/cpu/trace_test.cpp` does not include `pin_event.hpp`"
    ) in result.stdout
    assert (
        'docs/tests.md, "Not tested yet": `harness/src/platform/temp_directory.cpp` has a test named after it '
        "(harness/tests/cpu/temp_directory_test.cpp): remove its row"
    ) in result.stdout
    assert "3 finding(s)" in result.stdout, result.stdout
    before, after = _counts(_run(ROOT).stdout), _counts(result.stdout)
    assert before != after


def test_an_unreadable_table_is_exit_2(tree: Path):
    table = tree / "docs/tests.md"
    table.write_text(table.read_text().replace("<!-- test-mirror: untested -->", ""))
    result = _run(tree)
    assert result.returncode == 2
    assert "docs/tests.md has no '<!-- test-mirror: untested -->' table" in result.stderr


def test_suggest_prints_the_rows_to_start_from(tree: Path):
    (tree / "harness/src/run/new_thing.cpp").write_text('#include "run/new_thing.hpp"\n')
    (tree / "harness/src/run/new_thing.hpp").write_text("#pragma once\n")
    user = tree / "harness/tests/cpu/plan_test.cpp"
    user.write_text('#include "run/new_thing.hpp"\n' + user.read_text())
    (tree / "reports/pinreport/analysis/new_model.py").write_text("def f():\n    return 1\n")
    result = subprocess.run(
        [sys.executable, str(CHECK), "--root", str(tree), "--suggest"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        "| `harness/src/run/new_thing.cpp` | `harness/tests/cpu/plan_test.cpp` |  |",
        "| `reports/pinreport/analysis/new_model.py` |",
    ]


def test_public_headers_moved_into_stage_folders_still_count(tree: Path):
    """A header moved to harness/include/pinbench/<stage>/ and its includes rewritten: the rows
    that name a test including it still hold."""
    old = tree / "harness/include/pinbench/snapshot.hpp"
    new = tree / "harness/include/pinbench/probes/snapshot.hpp"
    new.parent.mkdir(exist_ok=True)
    old.rename(new)
    for test in (tree / "harness/tests").rglob("*.cpp"):
        text = test.read_text(errors="replace")
        if '"pinbench/snapshot.hpp"' in text:
            test.write_text(text.replace('"pinbench/snapshot.hpp"', '"pinbench/probes/snapshot.hpp"'))
    result = _run(tree)
    assert result.returncode == 0, result.stdout
    assert _counts(result.stdout) == _counts(_run(ROOT).stdout)
