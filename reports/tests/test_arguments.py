"""pinreport's parser errors (arguments.py): every word echoed is escaped, and a misspelt option
or command gets the nearest one (issue 57, item 7; issue 58's `-V`); `completion SHELL` prints a
script that completes commands, options and file names."""

import re
import shlex
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pinreport import __version__
from pinreport.arguments import COMPLETION_SHELLS, nearest
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


def _bash_completions(tmp_path, capsys, line: str) -> list[str]:
    """What bash offers for `line` (the word being completed is its last, maybe empty), with the
    script `pinreport completion bash` printed sourced, as a user's ~/.bashrc would."""
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "pinreport.bash"
    script.write_text(capsys.readouterr().out, encoding="utf-8")
    words = line.split(" ")
    driver = (
        f'source "{script}"\n'
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE={shlex.quote(line)}\nCOMP_POINT=${{#COMP_LINE}}\n"
        # The function `complete -p pinreport` names, as bash itself would call it.
        'fn=$(complete -p pinreport | sed -E "s/.*-F ([^ ]+).*/\\1/")\n'
        '"$fn" pinreport "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "-c", driver], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [w for w in done.stdout.splitlines() if w]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("pinreport su", ["summary"]),
        ("pinreport summary --mark", ["--markdown"]),
        ("pinreport completion ", ["bash", "zsh"]),
        ("pinreport budget-compare ol", ["old-budget.json"]),  # a file, its name completed
        ("pinreport html --store ", ["stores"]),  # a folder, never a file
    ],
)
def test_the_bash_completion_script_completes_commands_options_and_files(tmp_path, capsys, line, offered):
    """Issue 58: pinreport had no completion script (pinbench has `completion SHELL`)."""
    (tmp_path / "old-budget.json").write_text("{}")
    (tmp_path / "stores").mkdir()
    assert _bash_completions(tmp_path, capsys, line) == offered


def test_a_completion_script_for_each_shell_names_every_command(capsys):
    commands = ["compare", "html", "reserve", "trace", "advise", "summary", "budget-compare", "aa", "completion"]
    for shell in COMPLETION_SHELLS:
        assert main(["completion", shell]) == 0
        script = capsys.readouterr().out
        assert all(c in script for c in commands), shell
    code, out, err = _error(capsys, "completion", "fish")
    assert code == 2 and out == "" and "invalid choice: 'fish'" in err
