"""The words pinreport shows say what they refer to: no claim, metric title or page text names
an issue of the project's tracker ("issue 20", "#20") or a path on one machine ("/work/...",
"/tmp/..."), which mean nothing to a reader of the report. A project named beside its number
("pytorch #95823") is a reference a reader can follow, and passes."""

import json
import re
from importlib import resources
from pathlib import Path

from pinreport.claims.register import BRIEF, FURTHER

PACKAGE = Path(str(resources.files("pinreport")))

# "issue 20", "Issues 14, 15", and "#20" where no other project is named before it: the words a
# test shows (a claim, the catalog) are checked for all three, the package's sources (where CSS
# colours are "#666") for the words and the paths.
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
HASH = re.compile(r"(?:^|(?<=[\s(]))#\d+\b")
# Other projects' trackers, named with the project: a reference a reader can follow.
EXTERNAL = re.compile(r"(?:pytorch|PyTorch|FreeToken|NVIDIA|nvidia|vllm|llama\.cpp)\s+$")
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|tmp|home|root)/")
# The project's own planning words: users read "the claims under test" (docs/claims.md), never of
# a brief they have not seen.
PLANNING = re.compile(r"\bthe brief\b|\bbrief's\b", re.IGNORECASE)


def _problems(text: str, hashes: bool = True, planning: bool = True) -> list[str]:
    found = [m.group(0) for m in ISSUE.finditer(text)] + [m.group(0) for m in MACHINE_PATH.finditer(text)]
    if planning:
        found += [m.group(0) for m in PLANNING.finditer(text)]
    if hashes:
        found += [m.group(0) for m in HASH.finditer(text) if not EXTERNAL.search(text[: m.start()])]
    return found


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_the_pattern_finds_what_it_is_for():
    assert _problems("size and count sweeps (claims 2, 10, issue 20)") == ["issue 20"]
    assert _problems("Issues 14, 15: the status") == ["Issues 14"]
    assert _problems("see #20 for why") == ["#20"]
    assert _problems("(#20)") == ["#20"]
    assert _problems("docs: /work/shared/seed/brief.md") == ["/work/"]
    assert _problems("The brief's 14 claims: CONFIRMED 1") == ["The brief"]
    assert _problems("claims 2, 10 and one beyond the brief") == ["the brief"]
    assert _problems("written to /tmp/s1") == ["/tmp/"]
    # What is fine: another project's tracker named with the project, HTML entities, a claim's
    # number, a path inside the repository.
    assert _problems("pytorch #95823, FreeToken #233") == []
    assert _problems("&#39;capacity&#39; runs, claims 2 and 10, and an added claim") == []
    assert _problems("docs/kinds.md, reports/pinreport/data/metric_catalog.json") == []


def test_no_claim_names_a_tracker_issue_or_a_machine_path():
    for claim in (*BRIEF, *FURTHER):
        for text in (claim.n, claim.title):
            assert _problems(text) == [], f"{type(claim).__name__}: {text!r}"
    assert [c.n for c in BRIEF] == [str(i) for i in range(1, 15)]


def test_no_catalog_text_names_a_tracker_issue_or_a_machine_path():
    catalog = json.loads((PACKAGE / "data" / "metric_catalog.json").read_text(encoding="utf-8"))
    found = sorted({p + " in " + repr(s) for s in _strings(catalog) for p in _problems(s)})
    assert found == []


def test_no_source_or_template_of_pinreport_names_one():
    """The claims' evidence, the page's words and the comments beside them, as written."""
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in (".py", ".j2", ".json") or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            # Comments speak to developers; a template is all words shown.
            shown = path.suffix == ".j2"
            found += [
                f"{path.relative_to(PACKAGE)}:{number}: {p}" for p in _problems(line, hashes=False, planning=shown)
            ]
    assert found == []


def test_the_answer_and_the_page_speak_of_the_claims_under_test(tmp_path):
    """What a user reads first, made from a real results file: the summary's Markdown and the page
    name no tracker issue and no brief (the input's own path may be shown)."""
    from pinreport.cli import main

    results = Path(__file__).resolve().parents[2] / "results" / "readme-samples" / "quick.json"
    markdown, page = tmp_path / "s.md", tmp_path / "r.html"
    assert main(["summary", str(results), "--markdown", str(markdown)]) == 0
    assert main(["html", "--current", str(results), "-o", str(page)]) == 0
    for text in (markdown.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")):
        assert "claims under test" in text
        assert [m.group(0) for m in (*ISSUE.finditer(text), *PLANNING.finditer(text))] == []
