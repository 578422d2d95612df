"""One output-path rule for every command that writes a file (atomic_write.output_path; issue
41, class 2): a path ending in a separator is a folder, created where missing, and the command
writes its default file name inside it; a missing folder is created; the same file as one of
the command's inputs is refused by identity (a hard link too), exit 2, the input untouched.

Before: `-o some/path/` wrote over a file named `some/path` or created a file named like the
folder, and `-o` naming the results file being read replaced it with the page."""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest
from builders import add_to_store, make_store, results_doc, run_doc
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


@pytest.mark.parametrize("command", WRITERS)
def test_no_folder_is_left_by_a_command_that_writes_nothing(tmp_path, capsys, inputs, command):
    """docs/cli.md: a missing folder is made when the file is written, so a refused input
    leaves none behind (before, output_path made it before anything was read)."""
    which = "trace" if command == "trace" else "current"
    with open(inputs[which], "w") as f:
        f.write("{}")
    code = main(_argv(command, inputs, str(tmp_path / "a" / "b" / "out.file")))
    assert code == 2, capsys.readouterr().err
    assert not (tmp_path / "a").exists()


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


# --- issue 57: the output target is resolved once (atomic_write.resolve), by identity ---------


def _stored_store(tmp_path):
    """A store holding one night, and a current results file of the same machine."""
    root = make_store(tmp_path / "sj")
    night = add_to_store(root, results_doc([run_doc(nonce="a")], started_at="2025-05-01T10:00:00Z"))
    current = tmp_path / "cur.json"
    current.write_text(json.dumps(results_doc([run_doc(nonce="b")], started_at="2025-05-02T10:00:00Z")))
    return root, night, current


def _files(root):
    """Every file below root (the history index pinreport keeps in a store is its own: left out),
    by path: its inode and bytes."""
    return {
        p: (p.stat().st_ino, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and "index" not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("which", ["store.json", "night"])
@pytest.mark.parametrize("command", ["compare", "html", "summary"])
def test_a_file_inside_the_store_read_is_never_an_output(tmp_path, capsys, command, which):
    """Before: `compare --store sj --junit sj/store.json` exited 0 and the store was unreadable
    after; `html -o <a stored night>.json.gz` corrupted that night."""
    root, night, current = _stored_store(tmp_path)
    target = root / "store.json" if which == "store.json" else night
    before = _files(root)
    option = {"compare": "--junit", "html": "-o", "summary": "--markdown"}[command]
    argv = {"summary": ["summary", str(current), "--store", str(root)]}.get(
        command, [command, "--store", str(root), "--current", str(current)]
    )
    code = main([*argv, option, str(target)])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err == f"error: {target}: lies inside the store {str(root)!r} this command reads; refusing to write there\n"
    assert out == ""  # refused before anything was analysed
    assert _files(root) == before


def test_a_path_into_the_store_through_a_link_and_a_folder_not_made_yet_is_refused(tmp_path, capsys):
    root, night, current = _stored_store(tmp_path)
    (tmp_path / "elsewhere").symlink_to(root / "real")
    via = tmp_path / "elsewhere" / "new-folder" / ".." / night.relative_to(root / "real")
    before = _files(root)
    code = main(["compare", "--store", str(root), "--current", str(current), "--junit", str(via)])
    assert code == 2, capsys.readouterr().err
    assert _files(root) == before
    assert not (root / "real" / "new-folder").exists()


def test_an_input_through_a_folder_not_made_yet_is_refused_and_no_folder_is_made(tmp_path, capsys):
    """`new/../cur.json` is cur.json once `new` exists: refused before `new` is made (before,
    the folder was made first and left behind)."""
    root, _, current = _stored_store(tmp_path)
    via = tmp_path / "new" / ".." / "cur.json"
    before = current.read_bytes()
    code = main(["compare", "--store", str(root), "--current", str(current), "--junit", str(via)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err == f"error: {via}: is the same file as the input {str(current)!r}; refusing to replace it\n"
    assert current.read_bytes() == before
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--store", "{store}", "--current", "{current}", "--junit", ""],
        ["summary", "{current}", "--markdown", ""],
        ["html", "--store", "{store}", "--current", "{current}", "-o", ""],
        ["trace", "{trace}", "--html", ""],
    ],
    ids=["compare --junit", "summary --markdown", "html -o", "trace --html"],
)
def test_an_empty_output_path_is_exit_2(tmp_path, capsys, inputs, argv):
    """Before: `--junit ""` and `--markdown ""` were ignored (exit 0, no file)."""
    code = main([a.format(**inputs) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err == 'error: "": an empty output path\n'
    assert out == ""


def test_a_link_to_standard_output_is_written_to_it_and_stays_a_link(tmp_path):
    """`--junit /dev/stdout` (here a link of the same kind, in a temporary folder): the verdicts
    reach standard output; before, the atomic writer renamed a regular file over the link."""
    root, _, current = _stored_store(tmp_path)
    link = tmp_path / "stdout"
    link.symlink_to("/dev/stdout")
    for stdout in (subprocess.PIPE, (tmp_path / "console.txt").open("wb")):
        done = subprocess.run(
            [sys.executable, "-m", "pinreport", "compare", "--store", str(root), "--current", str(current)]
            + ["--junit", str(link)],
            stdout=stdout,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "reports")},
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert link.is_symlink() and os.readlink(link) == "/dev/stdout"
        printed = done.stdout if stdout is subprocess.PIPE else (tmp_path / "console.txt").read_bytes()
        assert b"<testsuites>" in printed and b"Summary: " in printed  # the console lines kept too


def test_dev_null_is_written_in_place(tmp_path, capsys):
    """Before: /dev/null was refused (exit 2) as a device."""
    root, _, current = _stored_store(tmp_path)
    code = main(["compare", "--store", str(root), "--current", str(current), "--junit", "/dev/null"])
    assert code == 0, capsys.readouterr().err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
