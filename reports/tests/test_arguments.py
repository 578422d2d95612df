"""pinreport's parser errors (arguments.py): every word echoed is escaped, and a misspelt option
or command gets the nearest one (issue 57, item 7; issue 58's `-V`)."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pinreport import __version__
from pinreport.arguments import nearest
from pinreport.cli import main

# Anything a terminal acts on: C0 and C1 controls, DEL, the bidirectional overrides.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _error(capsys, *argv):
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    return e.value.code, out, err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["summary", "--markdwn", "x.md", "r.json"], "did you mean --markdown?"),
        (["--versoin"], "did you mean --version?"),
        (["sumary", "r.json"], "did you mean summary?"),
        (["compare", "--store", "s", "--current", "c", "--juint", "j.xml"], "did you mean --junit?"),
        (["html", "--current", "c", "-o", "h.html", "--stroe=x"], "did you mean --store?"),
    ],
)
def test_a_misspelt_option_or_command_gets_the_nearest(capsys, argv, hint):
    """Before: `unrecognized arguments: --markdwn` with no hint; commands got none either."""
    code, out, err = _error(capsys, *argv)
    assert code == 2
    assert out == ""
    last = err.splitlines()[-1]
    assert last.startswith("pinreport: error: ") and last.endswith(hint), err


def test_the_usage_is_the_commands_own(capsys):
    _, _, err = _error(capsys, "summary", "--markdwn", "x.md", "r.json")
    assert err.startswith("usage: pinreport summary ")


def test_no_hint_for_a_word_near_nothing(capsys):
    _, _, err = _error(capsys, "summary", "r.json", "--zzzzzzzz")
    assert err.splitlines()[-1] == "pinreport: error: unrecognized arguments: --zzzzzzzz"


def test_the_terminal_examples_are_escaped(capsys):
    """Before: argparse printed the argument raw: ESC ] 0 retitled the terminal, ESC c cleared it."""
    code, _, err = _error(capsys, "summary", "r.json", "--\x1b]0;pwned\x07", "\x1bc")
    assert code == 2
    assert "\\x1b]0;pwned\\x07" in err and "\\x1bc" in err
    assert not RAW_CONTROL.search(err)


@settings(max_examples=200, deadline=None)
@given(word=st.text(min_size=1, max_size=30), command=st.sampled_from(["", "summary", "compare", "html", "aa"]))
def test_every_parser_error_is_escaped(word, command):
    """Whatever is typed, the error lines hold no character a terminal would act on."""
    import contextlib
    import io

    argv = [command, f"--{word}"] if command else [word]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main(argv)
    assert not RAW_CONTROL.search(err.getvalue()), repr(err.getvalue())


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flags(capsys, flag):
    code, out, _ = _error(capsys, flag)
    assert (code, out) == (0, f"pinreport {__version__}\n")


def test_nearest():
    assert nearest("--held_only", ["--held-only", "--help"]) == "--held-only"
    assert nearest("--onyl=x", ["--only", "--output"]) == "--only"
    assert nearest("--zzzz", ["--only"]) is None
