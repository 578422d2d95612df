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


def _add_rows(table: Path, covered: list[str], untested: list[str]) -> None:
    text = table.read_text()
    text = text.replace("| --- | --- | --- |\n", "| --- | --- | --- |\n" + "".join(r + "\n" for r in covered), 1)
    text = text.replace("| source |\n| --- |\n", "| source |\n| --- |\n" + "".join(r + "\n" for r in untested), 1)
    table.write_text(text)


def test_rows_that_went_stale_fail(tree: Path):
    # Rows planted beside the real ones: a source that is gone, a covering test that does not
    # mention its source, a source listed as untested that has its own test by now.
    (tree / "harness/src/run/planted_a.cpp").write_text("int a;\n")
    (tree / "harness/src/run/planted_b.cpp").write_text("int b;\n")
    (tree / "harness/tests/cpu/planted_b_test.cpp").write_text("// planted_b\n")
    _add_rows(
        tree / "docs/tests.md",
        covered=[
            "| `harness/src/run/gone.cpp` | `harness/tests/cpu/plan_test.cpp` |  |",
            "| `harness/src/run/planted_a.cpp` | `harness/tests/cpu/plan_test.cpp` |  |",
        ],
        untested=["| `harness/src/run/planted_b.cpp` |"],
    )
    result = _run(tree)
    assert result.returncode == 1
    assert (
        'docs/tests.md, "Covered by another test": `harness/src/run/gone.cpp` is no source (renamed or '
        "removed?): remove its row or write its new path"
    ) in result.stdout
    assert (
        'docs/tests.md, "Covered by another test": `harness/src/run/planted_a.cpp`: its test '
        "`harness/tests/cpu/plan_test.cpp` does not name `planted_a`"
    ) in result.stdout
    assert (
        'docs/tests.md, "Not tested yet": `harness/src/run/planted_b.cpp` has a test named after it '
        "(harness/tests/cpu/planted_b_test.cpp): remove its row"
    ) in result.stdout
    assert "3 finding(s)" in result.stdout, result.stdout


def test_a_covering_test_that_stops_including_the_header_fails(tree: Path):
    covered = tree / "harness/tests/cpu/trace_test.cpp"
    assert 'pin_event.hpp"' in covered.read_text()  # docs/tests.md: pin_event.cpp is tested there
    covered.write_text(covered.read_text().replace('pin_event.hpp"', 'other.hpp"'))
    result = _run(tree)
    assert result.returncode == 1
    assert (
        'docs/tests.md, "Covered by another test": `harness/src/cuda/pin_event.cpp`: its test '
        "`harness/tests/cpu/trace_test.cpp` does not include `pin_event.hpp`"
    ) in result.stdout


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
    """A public header moved into another folder of harness/include/pinbench/ and its includes
    rewritten: the rows that name a test including it still hold."""
    include = tree / "harness/include"
    old = next(include.rglob("snapshot.hpp"))
    was = old.relative_to(include).as_posix()
    new = include / "pinbench/moved/snapshot.hpp"
    new.parent.mkdir()
    old.rename(new)
    for test in (tree / "harness/tests").rglob("*.cpp"):
        text = test.read_text(errors="replace")
        if f'"{was}"' in text:
            test.write_text(text.replace(f'"{was}"', '"pinbench/moved/snapshot.hpp"'))
    result = _run(tree)
    assert result.returncode == 0, result.stdout
    assert _counts(result.stdout) == _counts(_run(ROOT).stdout)
