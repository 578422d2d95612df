"""ci/check_layers.py: clean on the tree, and failing on a planted arrow against the layering."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "ci" / "check_layers.py"


def _run(root: Path, check: Path = CHECK) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(check), "--root", str(root)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The parts of the checkout the check reads, copied so that a test may break them."""
    for part in ("docs/architecture.md", "harness/src", "harness/cli", "harness/include", "reports/pinreport"):
        source, target = ROOT / part, tmp_path / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)
    return tmp_path


def test_the_tree_follows_its_layering():
    result = _run(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "follow docs/architecture.md" in result.stdout
    assert "folder cycles: none" in result.stdout


def test_a_cpp_include_against_the_flow_fails(tree: Path):
    low = tree / "harness/src/platform/random_token.cpp"
    low.write_text('#include "run/child.hpp"\n' + low.read_text())
    result = _run(tree)
    assert result.returncode == 1
    assert (
        "harness/src/platform/random_token.cpp: includes harness/src/run/child.hpp: " "platform may not include run"
    ) in result.stdout
    assert "1 arrow(s) against the layering" in result.stdout


def test_a_public_header_outside_a_stage_folder_fails(tree: Path):
    (tree / "harness/include/pinbench/new_thing.hpp").write_text("#pragma once\n")
    user = tree / "harness/src/results/statistics.cpp"
    user.write_text('#include "pinbench/new_thing.hpp"\n' + user.read_text())
    result = _run(tree)
    assert result.returncode == 1
    assert "folder '?' has no row" in result.stdout


def test_a_public_header_takes_its_stage_from_its_folder(tree: Path):
    # The same include is allowed from run (rank 8) and refused from platform (rank 2).
    (tree / "harness/include/pinbench/run/new_thing.hpp").parent.mkdir(exist_ok=True)
    (tree / "harness/include/pinbench/run/new_thing.hpp").write_text("#pragma once\n")
    low = tree / "harness/src/platform/random_token.cpp"
    low.write_text('#include "pinbench/run/new_thing.hpp"\n' + low.read_text())
    result = _run(tree)
    assert result.returncode == 1
    assert "includes harness/include/pinbench/run/new_thing.hpp: platform may not include run" in result.stdout


def test_a_python_import_against_the_flow_fails_also_inside_a_function(tree: Path):
    stats = tree / "reports/pinreport/analysis/stats.py"
    stats.write_text(stats.read_text() + "\n\ndef _late():\n    from pinreport import cli  # noqa\n")
    result = _run(tree)
    assert result.returncode == 1
    assert "reports/pinreport/analysis/stats.py: imports pinreport.cli: analysis may not include cli" in result.stdout


@pytest.mark.parametrize("module", ["render/charts/rule.py", "formats/console.py"])
def test_an_output_that_imports_the_analysis_fails(tree: Path, module: str):
    """render/ and formats/ read the report their command's pipeline computed: an output that goes
    back into analysis/ (to fit, to recommend, to judge) is refused."""
    out = tree / "reports/pinreport" / module
    out.write_text("from pinreport.analysis.fit import recommend  # noqa\n" + out.read_text())
    result = _run(tree)
    assert result.returncode == 1
    assert f"reports/pinreport/{module}: imports pinreport.analysis.fit: report may not include analysis" in (
        result.stdout
    )


@pytest.mark.parametrize("attribute", ["doc", "record", "_doc", "_raw"])
def test_a_document_read_outside_the_readers_fails(tree: Path, attribute: str):
    """A stage that reads a document as written instead of the readers' typed values: refused,
    wherever it stands (the readers' own reads pass)."""
    banner = tree / "reports/pinreport/render/banner.py"
    banner.write_text(banner.read_text() + f"\n\ndef _source(current):\n    return current.{attribute}['replay']\n")
    result = _run(tree)
    assert result.returncode == 1
    line = len(banner.read_text().splitlines())
    assert (
        f"reports/pinreport/render/banner.py:{line}: reads .{attribute}, a document as written, outside "
        "pinreport's readers/"
    ) in result.stdout
    assert "reports/pinreport/readers/" not in result.stdout


def _with_exception(tree: Path, source: str, target: str) -> Path:
    """A copy of the check whose EXCEPTIONS list the arrow source -> target."""
    text = CHECK.read_text()
    listed = f'EXCEPTIONS: dict[tuple[str, str], str] = {{("{source}", "{target}"): "planted"}}'
    assert "EXCEPTIONS: dict[tuple[str, str], str] = {}" in text
    check = tree / "check_layers.py"
    check.write_text(text.replace("EXCEPTIONS: dict[tuple[str, str], str] = {}", listed))
    return check


def test_a_listed_exception_allows_its_arrow_and_a_cycle_it_makes_fails(tree: Path):
    # scenario -> results while results includes scenario: the last C++ folder cycle, ended.
    parser = tree / "harness/src/scenario/scenario_file.cpp"
    parser.write_text('#include "pinbench/results/metric_catalog.hpp"\n' + parser.read_text())
    check = _with_exception(
        tree, "harness/src/scenario/scenario_file.cpp", "harness/include/pinbench/results/metric_catalog.hpp"
    )
    result = _run(tree, check)
    assert result.returncode == 1
    assert "may not include" not in result.stdout
    assert "1 listed exceptions" in result.stdout
    assert "folder cycle: C++ results <-> C++ scenario" in result.stdout


def test_an_exception_that_matches_no_arrow_fails(tree: Path):
    check = _with_exception(
        tree, "harness/src/scenario/scenario_file.cpp", "harness/include/pinbench/results/metric_catalog.hpp"
    )
    result = _run(tree, check)
    assert result.returncode == 1
    assert "scenario_file.cpp -> harness/include/pinbench/results/metric_catalog.hpp matches no arrow" in result.stdout


def test_a_table_row_that_allows_a_higher_rank_fails(tree: Path):
    doc = tree / "docs/architecture.md"
    text = doc.read_text()
    row = "| 2 | `platform` |"
    assert row in text
    line = next(line for line in text.splitlines() if line.startswith(row))
    doc.write_text(text.replace(line, line.rstrip(" |") + ", `kinds` |"))
    result = _run(tree)
    assert result.returncode == 1
    assert "platform (rank 2) may include kinds (rank 10)" in result.stdout
