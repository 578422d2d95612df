"""One output-path rule for every command that writes a file (atomic_write.output_path; issue
41, class 2): a path ending in a separator is a folder, created where missing, and the command
writes its default file name inside it; a missing folder is created; the same file as one of
the command's inputs is refused by identity (a hard link too), exit 2, the input untouched.

Before: `-o some/path/` wrote over a file named `some/path` or created a file named like the
folder, and `-o` naming the results file being read replaced it with the page."""

import os
import shutil

import pytest
from builders import make_store
from conftest import REPO_ROOT
from pinreport.cli import main

CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
TRACE = REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json"

# command -> (its arguments before the output option, the output option, its default file name)
WRITERS = {
    "html": (["html", "--store", "{store}", "--current", "{current}"], "-o", "report.html"),
    "compare": (["compare", "--store", "{store}", "--current", "{current}"], "--junit", "verdicts.xml"),
    "summary": (["summary", "{current}"], "--markdown", "summary.md"),
    "trace": (["trace", "{trace}", "--store", "{store}"], "--html", "trace.html"),
}


@pytest.fixture
def inputs(tmp_path):
    current = tmp_path / "current.json"
    shutil.copy(CURRENT, current)
    trace = tmp_path / "trace.json"
    shutil.copy(TRACE, trace)
    return {"store": str(make_store(tmp_path / "store")), "current": str(current), "trace": str(trace)}


def _argv(command, inputs, output):
    args, option, _ = WRITERS[command]
    return [a.format(**inputs) for a in args] + [option, output]


@pytest.mark.parametrize("command", WRITERS)
def test_a_trailing_separator_is_a_folder_created_with_the_default_name(tmp_path, capsys, inputs, command):
    folder = tmp_path / "new" / "out"
    code = main(_argv(command, inputs, str(folder) + os.sep))
    err = capsys.readouterr().err
    assert code != 2 and "Traceback" not in err, err
    assert folder.is_dir()
    assert [p.name for p in folder.iterdir()] == [WRITERS[command][2]]


@pytest.mark.parametrize("command", WRITERS)
def test_a_trailing_separator_never_writes_over_a_file_of_that_name(tmp_path, capsys, inputs, command):
    blocker = tmp_path / "out"
    blocker.write_text("keep me")
    code = main(_argv(command, inputs, str(blocker) + "/"))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: {blocker}/: cannot create its folder "), err
    assert err.count("\n") == 1
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("command", WRITERS)
def test_a_missing_folder_is_created(tmp_path, capsys, inputs, command):
    target = tmp_path / "a" / "b" / "out.file"
    code = main(_argv(command, inputs, str(target)))
    assert code != 2, capsys.readouterr().err
    assert target.is_file()


@pytest.mark.parametrize("link", ["same name", "hard link", "symbolic link"])
@pytest.mark.parametrize("command", WRITERS)
def test_an_input_is_never_the_output(tmp_path, capsys, inputs, command, link):
    which = "trace" if command == "trace" else "current"
    source = inputs[which]
    before = open(source, "rb").read()  # noqa: SIM115 - read once
    output = source
    if link == "hard link":
        output = str(tmp_path / "other-name")
        os.link(source, output)
    elif link == "symbolic link":
        output = str(tmp_path / "other-name")
        os.symlink(source, output)
    code = main(_argv(command, inputs, output))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err == f"error: {output}: is the same file as the input {source!r}; refusing to replace it\n"
    assert open(source, "rb").read() == before  # noqa: SIM115
