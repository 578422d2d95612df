"""Property tests (Hypothesis) of issue 57's invariants, over generated inputs:

- no output alters an input or a store file: whatever output path a command is given (through
  links, `..`, folders not made yet, into the store, onto an input, a device, a FIFO), every
  input and every stored file keeps its bytes and inode, and the exit code is a documented one;
- every exit code is a documented one (0 to 3), never a traceback (also test_fuzz_readers.py);
- output size and peak memory bounded per input byte: test_fuzz_bounded_output.py.

Bounded for CI by the `ci` profile (conftest.py); PINREPORT_FUZZ=nightly runs far more examples.
What these found while being written is listed in docs/fuzzing.md ("pinreport's property
tests")."""

import contextlib
import io
import json
import os
import stat
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from builders import add_to_store, make_store, results_doc, run_doc  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pinreport.cli import main  # noqa: E402
from pinreport.store.history_index import INDEX_DIR  # noqa: E402

DOCUMENTED = {0, 1, 2, 3}
_SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# --- no output alters an input or a store file ---------------------------------------------------

# Where an output path starts (formatted with the sandbox's names), what may stand between, and
# what it ends in: together the shapes that reached an input or the store before.
ANCHORS = ["{tmp}", "{store}", "{store}/real", "{night_dir}", "{store_link}", "{night_link}", "{tmp}/sub"]
MIDDLES = ["new", "..", ".", "sub", "new2"]
LEAVES = [
    "cur.json",
    "budget.json",
    "store.json",
    "{night}",
    "out.file",
    "cur-symlink",
    "cur-hardlink",
    "null-link",
    "fifo",
    "sub",
    "{index}",
]


@st.composite
def output_paths(draw) -> str:
    if draw(st.integers(0, 30)) == 0:
        return ""
    parts = [draw(st.sampled_from(ANCHORS)), *draw(st.lists(st.sampled_from(MIDDLES), max_size=3))]
    parts.append(draw(st.sampled_from(LEAVES)))
    path = "/".join(parts)
    return path + "/" if draw(st.integers(0, 8)) == 0 else path


def _sandbox(tmp: Path) -> dict[str, str]:
    """Inputs, a store of two nights, links and special files beside them."""
    store = make_store(tmp / "store")
    night = add_to_store(store, results_doc([run_doc(nonce="a")], started_at="2025-05-01T10:00:00Z"))
    add_to_store(store, results_doc([run_doc(nonce="b")], started_at="2025-05-02T10:00:00Z"))
    current = tmp / "cur.json"
    current.write_text(json.dumps(results_doc([run_doc(nonce="c")], started_at="2025-05-03T10:00:00Z")))
    (tmp / "sub").mkdir()
    (tmp / "cur-symlink").symlink_to(current)
    os.link(current, tmp / "cur-hardlink")
    (tmp / "null-link").symlink_to(os.devnull)
    os.mkfifo(tmp / "fifo")
    (tmp / "out.file").write_text("an earlier output")
    (tmp / "store-link").symlink_to(store)
    (tmp / "night-link").symlink_to(night.parent)
    return {
        "tmp": str(tmp),
        "store": str(store),
        "night_dir": str(night.parent),
        "night": night.name,
        "store_link": str(tmp / "store-link"),
        "night_link": str(tmp / "night-link"),
        "current": str(current),
        "index": f"{INDEX_DIR}/x.json",
    }


def _protected(tmp: Path, store: Path) -> dict[str, tuple]:
    """What no command may alter: every entry of the sandbox but the earlier output and the
    history index pinreport keeps in the store (its own), by path: kind, inode, bytes or link."""
    out = {}
    for p in sorted(tmp.rglob("*")):
        if p.name == "out.file" or ".tmp." in p.name or _in_index(p, store):
            continue
        st_ = os.lstat(p)
        if stat.S_ISREG(st_.st_mode):
            out[str(p)] = ("file", st_.st_ino, p.read_bytes())
        elif stat.S_ISLNK(st_.st_mode):
            out[str(p)] = ("link", st_.st_ino, os.readlink(p))
        else:
            out[str(p)] = (stat.S_IFMT(st_.st_mode), st_.st_ino)
    return out


def _in_index(p: Path, store: Path) -> bool:
    return p.is_relative_to(store) and p.relative_to(store).parts[:1] == (INDEX_DIR,)


def _store_entries(store: Path) -> set[str]:
    return {str(p) for p in store.rglob("*") if not _in_index(p, store)}


def _argv(command: str, names: dict[str, str], output: str) -> list[str]:
    if command == "compare":
        return ["compare", "--store", names["store"], "--current", names["current"], "--junit", output]
    if command == "summary":
        return ["summary", names["current"], "--store", names["store"], "--markdown", output]
    return ["html", "--store", names["store"], "--current", names["current"], "-o", output]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@_SETTINGS
@given(command=st.sampled_from(["compare", "summary", "html"]), shape=output_paths())
def test_no_output_alters_an_input_or_a_store_file(command, shape):
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        names = _sandbox(tmp)
        output = shape.format(**names)
        store = Path(names["store"])
        before, entries = _protected(tmp, store), _store_entries(store)
        code, out, err = _run(_argv(command, names, output))
        assert code in DOCUMENTED, (code, err)
        assert "Traceback" not in err
        after = _protected(tmp, store)
        changed = {k for k in before if after.get(k) != before[k]}
        assert not changed, (output, sorted(changed), err)
        assert _store_entries(store) == entries, (output, err)  # nothing new in the store either
        if code == 2:  # refused: one line, before anything was analysed
            assert err.count("\n") == 1 and out == "", (output, err)
