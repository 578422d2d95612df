#!/usr/bin/env python3
"""The test-mirror check: the test of a source is found from the source's name.

A source is every C++ file of the harness (harness/src/**/*.cpp and *.cu, harness/cli/*.cpp) and
every module of pinreport (reports/pinreport/**/*.py; an __init__.py or __main__.py that defines
no function or class is left out). Its test, by name (docs/architecture.md, "Tests"):
  - C++ `harness/src/<stage>/NAME.cpp`: `harness/tests/<tier>/NAME_test.cpp` (tier: cpu, gpu,
    doubles), where a platform file `NAME_posix.cpp` / `NAME_win32.cpp` is also tested by
    `NAME_test.cpp`; the test must mention NAME (it includes NAME.hpp, or names the kind);
  - Python `reports/pinreport/<folder>/NAME.py`: `reports/tests/test_NAME.py` or, where two
    folders hold a NAME.py, `test_<folder>_NAME.py`; the test must import the module.
A source without one is listed in docs/tests.md: in "Covered by another test" with the test
files that cover it (each must exist and mention the source as above, so an entry cannot go
stale), or in "Not tested yet". The check fails on a source in neither, on a row whose source
is gone or has a test named after it by now, and on a covering test that is gone or no longer
mentions its source; each message says what to add or remove. It prints the counts.

Exit 0: clean; 1: a finding (each printed); 2: docs/tests.md could not be read.

Usage: ci/check_test_mirror.py [--root DIR] [--suggest]
"""

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

TABLE = "docs/tests.md"
COVERED = "<!-- test-mirror: covered -->"
UNTESTED = "<!-- test-mirror: untested -->"
PLATFORM_SUFFIXES = ("_posix", "_win32")


@dataclass
class Source:
    path: str  # relative to the root, with forward slashes
    language: str  # "C++" or "Python"
    word: str  # what a test that covers it must mention (the C++ stem, the Python module)
    named: list[str] = field(default_factory=list)  # the test file names that mirror it
    header: bool = False  # C++: a header WORD.hpp exists, so a covering test includes it


def cpp_sources(root: Path) -> list[Source]:
    files = [*(root / "harness/src").rglob("*.cpp"), *(root / "harness/src").rglob("*.cu")]
    files += (root / "harness/cli").glob("*.cpp")
    public = {h.stem for h in (root / "harness/include").rglob("*.hpp")}
    out = []
    for f in sorted(files):
        stem = f.stem
        stems = [stem] + [stem[: -len(s)] for s in PLATFORM_SUFFIXES if stem.endswith(s)]
        word = stems[-1]  # atomic_file_posix.cpp is atomic_file.hpp's
        named = [f"{s}_test.cpp" for s in stems]
        header = word in public or (f.parent / f"{word}.hpp").is_file()  # public, or beside it
        out.append(Source(f.relative_to(root).as_posix(), "C++", word, named, header))
    return out


def _defines_something(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(tree))


def python_sources(root: Path) -> list[Source]:
    package = root / "reports/pinreport"
    out = []
    for f in sorted(package.rglob("*.py")):
        if f.name in ("__init__.py", "__main__.py") and not _defines_something(f):
            continue
        parts = f.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        module = ".".join(parts)
        names = [f"test_{parts[-1]}.py"] + ([f"test_{parts[-2]}_{parts[-1]}.py"] if len(parts) > 2 else [])
        out.append(Source(f.relative_to(root).as_posix(), "Python", module, names))
    return out


def mentions(test: Path, source: Source, literal: str = "") -> bool:
    """Whether a test file mentions the source: LITERAL where the table gives one; else for C++
    an include of NAME.hpp where that header exists, the stem as a word where not (a kind's
    name); for Python the module imported or named in full."""
    text = test.read_text(encoding="utf-8", errors="replace")
    if literal:
        return literal in text
    if source.language == "C++":
        if source.header:
            return re.search(rf'#\s*include\s+"(?:[^"]*/)?{re.escape(source.word)}\.hpp"', text) is not None
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(source.word)}(?![A-Za-z0-9_])", text) is not None
    if re.search(rf"(?<![\w.]){re.escape(source.word)}(?![\w])", text):
        return True
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and any(f"{node.module}.{a.name}" == source.word for a in node.names)
        ):
            return True
    return False


def read_rows(doc: str, marker: str) -> list[list[str]]:
    """The rows of the table after MARKER: each cell's `code` spans (a cell may hold several)."""
    at = doc.find(marker)
    if at < 0:
        raise ValueError(f"{TABLE} has no '{marker}' table")
    rows = []
    lines = doc[at + len(marker) :].lstrip("\n").splitlines()
    for line in lines[2:]:  # after the header and the |---| line
        if not line.startswith("|"):
            break
        cells = line.strip().strip("|").split("|")
        rows.append([" ".join(re.findall(r"`([^`]+)`", c)) for c in cells])
    return rows


def tests_of(root: Path) -> dict[str, list[Path]]:
    """Test file name -> the files of that name (harness/tests, reports/tests)."""
    found: dict[str, list[Path]] = {}
    for f in [*(root / "harness/tests").rglob("*_test.c*"), *(root / "reports/tests").rglob("test_*.py")]:
        found.setdefault(f.name, []).append(f)
    return found


def what_to_mention(source: Source, literal: str = "") -> str:
    if literal:
        return f"contain `{literal}`"
    if source.language == "Python":
        return f"import `{source.word}`"
    return f"include `{source.word}.hpp`" if source.header else f"name `{source.word}`"


def named_test_hint(source: Source) -> str:
    if source.language == "C++":
        return f"harness/tests/cpu/{source.named[-1]} (gpu/ where it needs a GPU)"
    return f"reports/tests/{source.named[0]}" + (f" (or {source.named[1]})" if len(source.named) > 1 else "")


def candidates(root: Path, source: Source) -> list[str]:
    """The test files that mention a source as a covering test must (at most three)."""
    pool = [*(root / "harness/tests").rglob("*.cpp"), *(root / "harness/tests").rglob("*.cu")]
    if source.language == "Python":
        pool = [*(root / "reports/tests").rglob("test_*.py"), *(root / "ci/tests").rglob("test_*.py")]
    return [t.relative_to(root).as_posix() for t in sorted(pool) if mentions(t, source)][:3]


def check(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(findings, summary lines, the rows docs/tests.md lacks: --suggest prints them)."""
    doc = (root / TABLE).read_text(encoding="utf-8")
    covered_rows, untested_rows = read_rows(doc, COVERED), read_rows(doc, UNTESTED)
    sources = {s.path: s for s in cpp_sources(root) + python_sources(root)}
    tests = tests_of(root)
    problems: list[str] = []
    missing_rows: list[str] = []

    named: dict[str, list[str]] = {}
    near_misses: dict[str, list[str]] = {}
    for s in sources.values():
        for name in s.named:
            for t in tests.get(name, []):
                rel = t.relative_to(root).as_posix()
                # A Python name may repeat across folders (claims/churn.py, render/charts/churn.py):
                # there the test of that name is the one that imports the module.
                mirrors = s.language == "C++" or mentions(t, s)
                (named if mirrors else near_misses).setdefault(s.path, []).append(rel)

    covered: dict[str, list[str]] = {}
    untested: set[str] = set()
    seen: set[str] = set()
    for table, rows in (("Covered by another test", covered_rows), ("Not tested yet", untested_rows)):
        for row in rows:
            path = row[0] if row else ""
            where = f'{TABLE}, "{table}": `{path}`'
            if path in seen:
                problems.append(f"{where} is listed twice: keep one row")
                continue
            seen.add(path)
            if path not in sources:
                problems.append(f"{where} is no source (renamed or removed?): remove its row or write its new path")
                continue
            if path in named:
                problems.append(f"{where} has a test named after it ({', '.join(named[path])}): remove its row")
                continue
            if table == "Not tested yet":
                untested.add(path)
                continue
            covering = row[1].split() if len(row) > 1 else []
            literal = row[2] if len(row) > 2 else ""
            if not covering:
                problems.append(f"{where} names no test: add the test file(s) that cover it")
            for t in covering:
                if not (root / t).is_file():
                    problems.append(f"{where}: its test `{t}` does not exist: write where it is tested now")
                elif not mentions(root / t, sources[path], literal):
                    problems.append(
                        f"{where}: its test `{t}` does not {what_to_mention(sources[path], literal)}: "
                        'name the test that covers it now, or move the row to "Not tested yet"'
                    )
            covered[path] = covering

    for s in sources.values():
        if s.path in named or s.path in covered or s.path in untested:
            continue
        miss = near_misses.get(s.path)
        why = f" ({', '.join(miss)} has its name but does not {what_to_mention(s)})" if miss else ""
        found = candidates(root, s)
        cells = " ".join(f"`{t}`" for t in found)
        missing_rows.append(f"| `{s.path}` | {cells} |  |" if found else f"| `{s.path}` |")
        problems.append(
            f"{s.path}: no test named after it{why}. Add {named_test_hint(s)}, or a row "
            f'"| `{s.path}` | `TEST FILE` |" to {TABLE}\'s table "Covered by another test" '
            f"naming the test(s) that cover it (each must {what_to_mention(s)})"
        )

    summary = []
    for language in ("C++", "Python"):
        mine = [s for s in sources.values() if s.language == language]
        count = {
            k: sum(1 for s in mine if s.path in group)
            for k, group in (("named", named), ("covered", covered), ("untested", untested))
        }
        summary.append(
            f"test mirror: {language}: {len(mine)} sources: {count['named']} with a test named after them, "
            f"{count['covered']} covered by another test, {count['untested']} not tested yet"
        )
    summary.append(
        f'test mirror: untested-source list ({TABLE}, "Not tested yet"): {len(untested)}; '
        f"without a test named after them: {len(sources) - len(named)} of {len(sources)}"
    )
    return problems, summary, missing_rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument(
        "--suggest",
        action="store_true",
        help="print a row for each source docs/tests.md lacks: with the tests that include or import it "
        '(check that they test it) for "Covered by another test", else for "Not tested yet"',
    )
    args = parser.parse_args()
    try:
        problems, summary, missing_rows = check(args.root)
    except (OSError, ValueError) as e:
        print(f"check_test_mirror: {e}", file=sys.stderr)
        return 2
    if args.suggest:
        print("\n".join(missing_rows))
        return 0
    for p in problems:
        print(f"check_test_mirror: {p}")
    print("\n".join(summary))
    if problems:
        print(f'check_test_mirror: {len(problems)} finding(s) (the test layout: docs/architecture.md, "Tests")')
        if missing_rows:
            print("check_test_mirror: ci/check_test_mirror.py --suggest prints the rows to start from")
        return 1
    print("check_test_mirror: every source has a test named after it or is listed in docs/tests.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
