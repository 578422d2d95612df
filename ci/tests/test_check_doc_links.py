"""ci/check_doc_links.py: clean on the tree, and failing, naming file, line and target, on a link
to a missing file or to a heading the linked file does not have."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "ci" / "check_doc_links.py"


def _run(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK), *map(str, args)], capture_output=True, text=True, timeout=60)


def test_every_link_of_the_tree_resolves():
    done = _run("--root", ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resolve" in done.stdout


def test_a_missing_file_and_a_missing_heading_are_named(tmp_path):
    (tmp_path / "other.md").write_text("# Title\n\n## Stopping early\n\n## Stopping early\n")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# Doc\n"
        "[ok](other.md) [ok](other.md#stopping-early) [ok](other.md#stopping-early-1) [ok](#doc)\n"
        "[gone](gone.md)\n"
        "[no heading](other.md#stopping-late)\n"
        "[no local heading](#nowhere)\n"
        "`[in a code span](gone.md)` [web](https://example.com/gone.md)\n"
        "```\n[in a code block](gone.md)\n```\n"
    )
    done = _run("--root", tmp_path, doc)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "doc.md:3: gone.md: no such file",
        "doc.md:4: other.md#stopping-late: no heading '#stopping-late' in other.md",
        "doc.md:5: #nowhere: no heading '#nowhere' in doc.md",
    ]
    assert "3 broken of" in done.stderr


def test_headings_with_code_and_punctuation_get_githubs_anchor(tmp_path):
    (tmp_path / "kinds.md").write_text("## command (your own program, docs/trace.md)\n## `workers` (claim 11)\n")
    doc = tmp_path / "doc.md"
    doc.write_text("[a](kinds.md#command-your-own-program-docstracemd) [b](kinds.md#workers-claim-11)\n")
    done = _run("--root", tmp_path, doc)
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip() == "check_doc_links: 2 links in 1 files resolve"
