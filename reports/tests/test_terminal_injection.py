"""Untrusted text shown on a terminal is escaped by one function (text.terminal_safe;
class 8): a release, a run's reason, a program's command, an environment value, a file name
holding ESC, CR, a line break or a bidirectional override reaches no command's output as it is,
so a results file or a trace cannot recolour the answer, overwrite a line, forge one, or erase
the [REPLAYED] label. The HTML page escapes the same text as HTML (Jinja2 autoescape).

Before: `compare` printed `baseline: history of 580.1<ESC>[2K<CR>FORGED` as it was, and a line
break in a failed run's reason started a line of its own in compare and summary."""

import json
import shutil

import pytest
from builders import add_to_store, make_store, results_doc, run_doc, write_json
from conftest import REPO_ROOT
from pinreport.base.text import terminal_safe
from pinreport.cli import main

EVIL = "\x1b[2K\rFORGED\nFORGED line\u202e\x07<img src=x onerror=alert(1)>"
UNSAFE = ["\x1b", "\r", "\u202e", "\x07"]
TRACE = REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json"
MiB = 2**20


def _runs():
    return [
        run_doc(size=64 * MiB, nonce="a"),
        run_doc(size=1024 * MiB, costs={"cuda.free": [3 * MiB] * 7}, nonce="b"),
        run_doc(size=MiB, status="failed", reason="boom" + EVIL, nonce="c"),
    ]


@pytest.fixture
def hostile(tmp_path):
    store = make_store(tmp_path / "store")
    old = results_doc(_runs(), release="572.16" + EVIL, started_at="2025-05-01T10:00:00Z")
    old["environment"]["kernel"] = "k" + EVIL
    add_to_store(store, old)
    cur = results_doc(_runs(), release="580.1" + EVIL, started_at="2025-06-01T10:00:00Z")
    cur["command"] = ["pinbench", "run" + EVIL]
    cur["environment"]["kernel"] = "other" + EVIL
    current = write_json(tmp_path / ("cur" + EVIL.replace("\n", "_").replace("/", "_") + ".json"), cur)
    trace = json.loads(TRACE.read_text())
    trace["command"] = ["python" + EVIL]
    trace["tracing"]["message"] = EVIL
    trace["pinned"]["summary"] = EVIL
    trace["pinned"]["peak_by_site"] = {"site" + EVIL: 1}
    trace["pinned"]["by_api"] = {"api" + EVIL: {"calls": 1}}
    trace_path = tmp_path / ("trace" + EVIL.replace("\n", "_").replace("/", "_") + ".json")
    trace_path.write_text(json.dumps(trace))
    return {"store": str(store), "current": str(current), "trace": str(trace_path), "out": str(tmp_path / "r.html")}


COMMANDS = {
    "compare": ["compare", "--store", "{store}", "--current", "{current}"],
    "summary": ["summary", "{current}", "--store", "{store}"],
    "html": ["html", "--store", "{store}", "--current", "{current}", "-o", "{out}"],
    "reserve": ["reserve", "--store", "{store}", "--size", "1GiB", "--driver", "572.16" + EVIL],
    "aa": ["aa", "{current}", "{current}"],
    "trace": ["trace", "{trace}", "--store", "{store}"],
    "advise": ["advise", "{trace}", "--store", "{store}"],
    "advise json": ["advise", "{trace}", "--json"],
    "bad input": ["summary", "{current}.missing"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_no_control_character_reaches_the_terminal(capsys, hostile, command):
    main([a.format(**hostile) for a in COMMANDS[command]])
    out, err = capsys.readouterr()
    for text in (out, err):
        for c in UNSAFE:
            assert c not in text, (command, c, text[:2000])
        forged = [line for line in text.splitlines() if line.startswith("FORGED")]
        assert not forged, (command, forged)
    assert "FORGED" in out + err or command in ("reserve", "aa", "html"), "the text is shown, escaped"


def test_the_page_escapes_the_same_text_as_html(capsys, hostile):
    assert main([a.format(**hostile) for a in COMMANDS["html"]]) != 4, capsys.readouterr().err
    page = open(hostile["out"], encoding="utf-8").read()  # noqa: SIM115
    assert "580.1" in page
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("580.1\x1b[2K\rFORGED", "580.1\\x1b[2K\\rFORGED"),
        ("a\nb\tc", "a\\nb\\tc"),
        ("\x00\x7f\x9b", "\\x00\\x7f\\x9b"),
        ("rtl\u202eevil\u2066", "rtl\\u202eevil\\u2066"),
        ("Müller 田中 ±", "Müller 田中 ±"),
    ],
)
def test_terminal_safe(text, shown):
    assert terminal_safe(text) == shown


def test_the_output_layer_keeps_the_formatters_line_breaks():
    assert terminal_safe("a\nb\x1b\n", keep="\n") == "a\nb\\x1b\n"


def test_a_replayed_label_cannot_be_erased(tmp_path, capsys):
    """A carriage return in the file name would have moved the cursor back over [REPLAYED]."""
    doc = results_doc(_runs()[:2], replay_of="real.json")
    current = write_json(tmp_path / "x\rreal.json", doc)
    shutil.copy(current, tmp_path / "copy.json")
    main(["summary", str(current)])
    out = capsys.readouterr().out
    assert "\r" not in out
    assert all(line.startswith("[REPLAYED]") for line in out.splitlines()[:3]), out


def test_the_junit_file_stays_xml(tmp_path, capsys, hostile):
    """Not a terminal, but the same text: ElementTree wrote ESC as it was, and the file was no
    longer XML (`not well-formed (invalid token)`)."""
    import xml.etree.ElementTree as ET

    out = tmp_path / "verdicts.xml"
    main([a.format(**hostile) for a in COMMANDS["compare"]] + ["--junit", str(out)])
    capsys.readouterr()
    text = ET.tostring(ET.parse(out).getroot(), encoding="unicode")
    assert "\\x1b[2K\\rFORGED" in text
