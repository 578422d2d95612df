#!/usr/bin/env python3
"""Every file a message or help text cites is one the user's install has (issue 58, defect 3).

    ci/check_citations.py [--pinbench PATH]

The messages: every string pinbench's sources can print (ci/package.py's cpp_messages: errors,
hints, the answer's lines, --help texts), every string pinreport can print (python_messages),
and the help screens themselves: `pinbench --help` and `--help` of every command (PATH, default
build/ci-nogpu/harness/pinbench, where built), pinreport's and each of its commands'. A citation
is a path into the repository (README.md, docs/..., scenarios/..., build/..., reports/...); each
must be shipped by both packages: the zip or tarball (ci/package.py: README.md, the programs and
data_files()) and the wheel (ci/wheel.py: data_files() under share/pinbench/, no README). A
citation of a section ("docs/replay.md, 'Errors'") must name a heading of that page.
Prints how many messages and citations it checked, then one line per bad citation.

Exit codes: 0 every citation is shipped; 1 one is not.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import package  # noqa: E402

ROOT = package.ROOT
# A path into the repository; `<preset>` and `*` stand for a part a user fills in.
CITATION = re.compile(
    r"(?<![A-Za-z0-9_./~-])(README\.md|(?:docs|scenarios|results|reports|harness|ci|benchmarks|tools|build)/"
    r"[A-Za-z0-9_.<>*/-]*[A-Za-z0-9_>*/])"
)
SECTION = re.compile(r"""(docs/[A-Za-z0-9_.-]+\.md),? ["'\u201c]([^"'\u201d]+)["'\u201d]""")


def shipped() -> tuple[set[str], set[str]]:
    """The file names the zip (and tarball) and the wheel's share/pinbench/ hold, as cited."""
    data = {name for _, name in package.data_files()}
    return data | {"README.md"}, data


def pinbench_helps(exe: Path) -> list[tuple[str, str]]:
    """`pinbench --help` and every command's, by the commands its completion tree names."""

    def run(*args: str) -> str:
        return subprocess.run([str(exe), *args], capture_output=True, text=True, check=False).stdout

    helps = [("pinbench --help", run("--help"))]
    bash = run("completion", "bash")
    steps = re.search(r"case \"\$at/\$\{COMP_WORDS\[i\]\}\" in\n\s+(\S+)\)", bash)
    for step in steps.group(1).split("|") if steps else []:
        words = step.split("/")[1:]
        helps.append((f"pinbench {' '.join(words)} --help", run(*words, "--help")))
    return helps


def pinreport_helps() -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT / "reports"))
    from pinreport.arguments import _subparsers
    from pinreport.cli import _parser

    top = _parser()
    return [("pinreport --help", top.format_help())] + [
        (f"pinreport {name} --help", sub.format_help()) for name, sub in _subparsers(top).items()
    ]


def headings(doc: Path) -> set[str]:
    return {
        line.lstrip("#").strip().strip("`")
        for line in doc.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }


def problems_of(messages: list[tuple[str, str]], zip_names: set[str], wheel_names: set[str]) -> tuple[int, list[str]]:
    """How many citations the messages hold, and one line per citation an install lacks."""
    count, problems = 0, []

    def has(names: set[str], cited: str) -> bool:  # a file, or a folder of files
        return cited in names or any(n.startswith(cited.rstrip("/") + "/") for n in names)

    for where, text in messages:
        for cited in CITATION.findall(text):
            count += 1
            lacking = [
                what for what, names in (("the zip", zip_names), ("the wheel", wheel_names)) if not has(names, cited)
            ]
            if lacking:
                problems.append(f"{where}: cites {cited}, which {' and '.join(lacking)} do not ship: {text[:120]!r}")
        for page, section in SECTION.findall(text):
            if (ROOT / page).is_file() and section.strip() not in headings(ROOT / page):
                problems.append(f"{where}: cites {page}, '{section}', which has no such heading")
    return count, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pinbench", type=Path, default=ROOT / "build" / "ci-nogpu" / "harness" / "pinbench")
    args = parser.parse_args(argv)
    messages = package.cpp_messages() + package.python_messages() + pinreport_helps()
    if args.pinbench.is_file():
        messages += pinbench_helps(args.pinbench)
    else:
        print(f"check_citations: {args.pinbench} not built: pinbench's help screens are not checked")
    count, problems = problems_of(messages, *shipped())
    print(f"check_citations: {len(messages)} messages and help texts checked, {count} citations of files")
    for line in problems:
        print(f"check_citations: {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
