"""The store's read side at scale: one measurement counts once, compare reads only what it needs,
compare and html agree on integrity, and the history index (pinreport.store.history_index)."""

import json
import os
import time

import pytest
from builders import add_to_store, document, make_store, results_doc, rewrite_stored, run_doc, stored_text, write_json
from pinreport.cli import main
from pinreport.readers.results import ResultsFile, load_results, measurement_id
from pinreport.store import history_index as store_index
from pinreport.store.files import content_hash, legacy_content_hash
from pinreport.store.history_index import GroupIndex, index_path
from pinreport.store.reading import read_for_compare, read_for_html, read_store


def _current(doc):
    """A current results file as the commands read it (the store readers take a ResultsFile)."""
    return ResultsFile("current.json", doc)


def _night(started_at: str, release: str = "580.65.06", **kw) -> dict:
    return results_doc([run_doc(**kw)], started_at=started_at, release=release)


def test_measurement_id_matches_the_cpp_derivation():
    # The same document as harness/tests/cpu/store_test.cpp (MeasurementIdentityIs...): XXH3-64
    # of "2025-06-01T10:00:00Z\ncuda\naa\nzz".
    doc = {
        "started_at": "2025-06-01T10:00:00Z",
        "backend": "cuda",
        "runs": [{"repeats": [{"nonce": "zz"}, {"nonce": "aa"}]}],
    }
    assert measurement_id(doc) == "derived-72e8672fc04da6ea"
    doc["measurement_id"] = "5eed1d0000c0ffee"
    assert measurement_id(doc) == "5eed1d0000c0ffee"


def test_one_measurement_stored_twice_in_other_formatting_counts_once(tmp_path):
    """Before: a re-saved copy (other whitespace, CRLF, key order) was a second night."""
    root = make_store(tmp_path / "store")
    doc = _night("2025-06-01T10:00:00Z")
    first = add_to_store(root, doc)
    crlf = json.dumps(doc, indent=3).replace("\n", "\r\n").encode()
    reordered = json.dumps(dict(reversed(list(doc.items())))).encode()
    for data in (crlf, reordered):
        path = first.with_name(first.name[:17] + content_hash(data) + ".json")
        path.write_bytes(data)
    contents = read_store(root)
    assert contents.problems == []
    assert [e.path for e in contents.entries] == [max(str(p) for p in first.parent.iterdir())]


def test_a_resumed_file_stands_for_its_partial(tmp_path):
    root = make_store(tmp_path / "store")
    full = results_doc([run_doc(size=s) for s in (1 << 26, 1 << 27)], started_at="2025-06-01T10:00:00Z")
    full["measurement_id"] = "00c0ffee5eed1d00"
    partial = json.loads(json.dumps(full))
    partial["complete"] = False
    partial["runs"] = partial["runs"][:1]
    add_to_store(root, partial)
    complete = add_to_store(root, full)
    entries = read_store(root).entries
    assert [e.path for e in entries] == [str(complete)]


def _store_with_history(tmp_path):
    """Nights of 572.16 and 580.65.06, and a corrupt file under an old release nobody needs."""
    root = make_store(tmp_path / "store")
    for day in (1, 2):
        add_to_store(root, _night(f"2025-05-0{day}T10:00:00Z", "572.16"))
    baseline = add_to_store(root, _night("2025-05-03T10:00:00Z", "572.16"))
    for day in (4, 5):
        add_to_store(root, _night(f"2025-05-0{day}T10:00:00Z"))
    old = add_to_store(root, _night("2025-04-01T10:00:00Z", "560.10"))
    rewrite_stored(old, stored_text(old)[:50])
    current = write_json(tmp_path / "current.json", _night("2025-05-06T10:00:00Z"))
    return root, current, baseline, old


def test_compare_reads_only_the_current_and_previous_release(tmp_path, capsys):
    """Before: compare read, hashed and schema-checked every stored file (and named the corrupt
    560.10 file it never needed, exit 2)."""
    root, current, _, old = _store_with_history(tmp_path)
    contents = read_for_compare(root, load_results(current))
    assert sorted({e.key.release for e in contents.entries}) == ["572.16", "580.65.06"]
    assert len(contents.entries) == 5
    assert contents.problems == []
    code = main(["compare", "--store", str(root), "--current", str(current)])
    out, err = capsys.readouterr()
    assert str(old) not in out + err
    assert code == 0


def test_compare_and_html_agree_on_a_hand_edited_baseline(tmp_path, capsys):
    """Before: html trusted the stored hashes and used the edited file; compare named it."""
    root, current, baseline, _ = _store_with_history(tmp_path)
    rewrite_stored(baseline, stored_text(baseline).replace('"wall_ms": 500.0', '"wall_ms": 501.0', 1))
    codes = []
    for argv in (["compare"], ["html", "-o", str(tmp_path / "r.html")]):
        codes.append(main([*argv, "--store", str(root), "--current", str(current)]))
        out, err = capsys.readouterr()
        named = out + err + ((tmp_path / "r.html").read_text() if argv[0] == "html" else "")
        assert f"{baseline}: its bytes do not match the hash in its name" in named.replace("&#39;", "'"), argv
    assert codes[0] == codes[1] == 2


def test_html_history_comes_from_the_index_and_each_file_is_checked_once(tmp_path, monkeypatch):
    root, current, baseline, old = _store_with_history(tmp_path)
    doc = document(load_results(current))
    checked = []
    real_check = store_index.check_stored_file

    def counting(root_, path, namespace, **kw):
        if not kw.get("validated"):
            checked.append(path.name)
        return real_check(root_, path, namespace, **kw)

    monkeypatch.setattr(store_index, "check_stored_file", counting)
    first = read_for_html(root, _current(doc))
    assert len(checked) == 6  # each file of the group once, the corrupt 560.10 one included
    assert [e.key.release for e in first.history] == ["572.16"] * 3 + ["580.65.06"] * 2
    assert [p.path for p in first.problems] == [str(old)]  # html names every problem of the group
    checked.clear()
    second = read_for_html(root, _current(doc))
    assert checked == []  # nothing checked again: same hash, same stamp
    assert [e.path for e in second.history] == [e.path for e in first.history]
    # The history doc is a summary: ok rule-kind runs and their held costs only.
    assert set(document(second.history[0])) == {
        "started_at",
        "backend",
        "measurement_id",
        "complete",
        "environment",
        "runs",
    }
    # A new night: only it is checked.
    add_to_store(root, _night("2025-05-07T10:00:00Z"))
    read_for_html(root, _current(doc))
    assert checked == [f"20250507T100000Z-{p.name[17:]}" for p in sorted((root / "real").rglob("20250507*"))]


def test_a_copied_store_keeps_its_rows_by_content_and_an_edit_is_checked(tmp_path, monkeypatch):
    """A fresh checkout of a store branch (or a copy, a restore) gives every file a new stamp:
    rows whose file still gives the XXH3 hash in its name keep their summary unparsed; a file
    edited since is checked again and named."""
    import shutil

    root, current, _, old = _store_with_history(tmp_path)
    history_only = add_to_store(root, _night("2025-04-15T10:00:00Z", "565.00"))  # compare never reads it
    doc = document(load_results(current))
    first = read_for_html(root, _current(doc))
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)  # new inodes, ctimes
    edited = sorted((copy / "real").rglob("20250504*"))[0]
    rewrite_stored(edited, stored_text(edited).replace('"wall_ms": 500.0', '"wall_ms": 501.0', 1))
    checked = []
    real_check = store_index.check_stored_file

    def counting(root_, path, namespace, **kw):
        checked.append(path.name)
        return real_check(root_, path, namespace, **kw)

    monkeypatch.setattr(store_index, "check_stored_file", counting)
    second = read_for_html(copy, _current(doc))
    # The comparison's own files (current and previous release) are read as always (the edited
    # one among them); of the rest, only the file with a problem is checked again.
    assert edited.name in checked and old.name in checked
    assert history_only.name not in checked
    assert any(e.path == str(copy / history_only.relative_to(root)) for e in second.history)
    kept = [e.started_at for e in first.history if "05-04" not in e.started_at]
    assert [e.started_at for e in second.history] == kept
    assert str(edited) in {p.path for p in second.problems}


def test_the_index_is_derived_never_trusted_when_broken(tmp_path):
    root, current, baseline, _ = _store_with_history(tmp_path)
    doc = document(load_results(current))
    read_for_html(root, _current(doc))
    index = index_path(root, ("linux", "linux", "nvidia-h200", "1gpu"))
    rows = json.loads(index.read_text())["files"]
    assert len(rows) == 6  # 5 nights and the corrupt 560.10 file (a problem row)
    assert sum(r["problem"] is not None for r in rows.values()) == 1
    stale = index.with_name(index.name + ".tmp.4242.00ff00ff")  # a killed writer's, an hour old
    stale.write_text("{")
    os.utime(stale, (0, 0))
    index.write_text(index.read_text()[:100])  # a broken index (never written so: atomic)
    again = read_for_html(root, _current(doc))
    assert len(again.history) == 5
    assert json.loads(index.read_text())["files"] == rows  # rebuilt from the stored files alike
    assert [p.name for p in index.parent.iterdir()] == [index.name]  # no temporaries left
    # An edit changes the file's stamp: its row is checked again and names it.
    rewrite_stored(baseline, stored_text(baseline).replace('"wall_ms": 500.0', '"wall_ms": 502.0', 1))
    edited = read_for_html(root, _current(doc))
    assert str(baseline) in [p.path for p in edited.problems]
    assert str(baseline) not in [e.path for e in edited.history]


def test_a_version_1_store_with_fnv_names_still_reads(tmp_path):
    root = make_store(tmp_path / "store")
    (root / "store.json").write_text('{"schema": "pinbench.store", "schema_version": 1}')
    doc = _night("2025-05-01T10:00:00Z")
    data = json.dumps(doc).encode()
    path = add_to_store(root, doc)
    path.unlink()
    legacy = path.with_name(f"20250501T100000Z-{legacy_content_hash(data)}.json")
    legacy.write_bytes(data)
    current = _night("2025-05-02T10:00:00Z")
    for contents in (
        read_store(root),
        read_for_compare(root, _current(current)),
        read_for_html(root, _current(current)),
    ):
        assert contents.problems == []
        assert [e.path for e in contents.entries] == [str(legacy)]
    assert [e.path for e in read_for_html(root, _current(current)).history] == [str(legacy)]  # from the index


def test_index_rows_survive_a_reader_between_saves(tmp_path):
    root, current, _, _ = _store_with_history(tmp_path)
    idx = GroupIndex(root, ("linux", "linux", "nvidia-h200", "1gpu"))
    idx.history()
    idx.save()
    assert GroupIndex(root, idx.group).rows == idx.rows


def test_an_older_night_is_named_once_for_the_store_with_the_command_that_upgrades_it(tmp_path, capsys):
    """A night an older pinbench stored (results version 4) is refused by every command, in one
    line for the store with `pinbench store upgrade`; the index keeps that fact of the file (its
    version), and the previous release stays its release, never passed over for an older one.
    Before: pinreport ran `pinbench results upgrade` on it and kept the harness's output."""
    root = make_store(tmp_path / "store")
    add_to_store(root, _night("2025-05-01T10:00:00Z", release="560.10"))
    older = add_to_store(
        root, results_doc([run_doc()], started_at="2025-05-02T10:00:00Z", release="570.10", schema_version=4)
    )
    add_to_store(root, _night("2025-06-01T10:00:00Z"))
    current = write_json(tmp_path / "current.json", _night("2025-06-02T10:00:00Z"))
    line = (
        f"error: {root}: 1 stored night(s) of results schema version 4, older than version 5, which this "
        f"pinreport reads: upgrade them with `pinbench store upgrade --store {root}`"
    )
    assert main(["compare", "--store", str(root), "--current", str(current)]) == 2
    out = capsys.readouterr().out
    assert line.removeprefix("error: ") in out and "pinbench results upgrade" not in out
    assert "baseline: previous release 570.10: 0 stored file(s)" in out  # not 560.10's
    assert main(["html", "--store", str(root), "--current", str(current), "-o", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.splitlines() == [line]
    rows = json.loads(index_path(root, ("linux", "linux", "nvidia-h200", "1gpu")).read_text())["files"]
    assert rows[older.relative_to(root).as_posix()]["older"] == 4


def test_a_night_that_cannot_be_read_here_is_named_and_keeps_no_row(tmp_path, monkeypatch, capsys):
    """The index holds facts of a file only: a read that failed on this machine (permissions, an
    I/O error) is named, never kept as the night's row. Before: the failure was kept, and the
    night stayed unusable after the read would have worked."""
    from pinreport.store import files

    root = make_store(tmp_path / "store")
    add_to_store(root, _night("2025-05-01T10:00:00Z"))
    locked = add_to_store(root, _night("2025-05-02T10:00:00Z"))
    current = write_json(tmp_path / "current.json", _night("2025-06-02T10:00:00Z"))
    html = ["html", "--store", str(root), "--current", str(current), "-o", str(tmp_path / "r.html")]
    real_read = files.read_bounded

    def read_bounded(path, limit):
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied")
        return real_read(path, limit)

    monkeypatch.setattr(files, "read_bounded", read_bounded)
    assert main(html) == 2
    assert capsys.readouterr().err == f"error: {locked}: cannot read: Permission denied\n"
    rows = json.loads(index_path(root, ("linux", "linux", "nvidia-h200", "1gpu")).read_text())["files"]
    assert locked.relative_to(root).as_posix() not in rows
    monkeypatch.setattr(files, "read_bounded", real_read)
    assert main(html) == 0
    assert capsys.readouterr().err == ""


def test_an_error_crosses_from_a_worker_process_as_it_was():
    import pickle

    from pinreport.base.errors import BadInputError, OlderResultsError

    e = pickle.loads(pickle.dumps(BadInputError("store/a.json.gz", "its bytes do not match")))
    assert (type(e), e.path, e.detail, str(e)) == (
        BadInputError,
        "store/a.json.gz",
        "its bytes do not match",
        "store/a.json.gz: its bytes do not match",
    )
    older = pickle.loads(pickle.dumps(OlderResultsError("store/b.json.gz", 3, 5)))
    assert (type(older), older.version, str(older)) == (
        OlderResultsError,
        3,
        str(OlderResultsError("store/b.json.gz", 3, 5)),
    )


def test_worker_processes_read_the_store_as_one_process_does(tmp_path, monkeypatch):
    """PINREPORT_JOBS=1 reads in this process; 3 spreads the 12 nights' checks over workers.
    Both give the same comparison, history, problems and index rows."""
    from pinreport.base import worker_pool

    root = make_store(tmp_path / "store")
    for day in range(1, 12):
        add_to_store(root, _night(f"2025-06-{day:02d}T10:00:00Z"))
    rewrite_stored(next((root / "real").rglob("*0605T*.json.gz")), '{"edited": "by hand"}')
    current = _night("2025-06-20T10:00:00Z")
    seen = {}
    for jobs in ("1", "3"):
        monkeypatch.setenv("PINREPORT_JOBS", jobs)
        monkeypatch.setattr(worker_pool, "MIN_ITEMS_PER_WORKER", 2)
        if jobs == "3":
            assert len(set(worker_pool.map_in_processes(_pid_of, list(range(12))))) > 1
        for index in (root / "index").rglob("*.json"):
            index.unlink()
        contents = read_for_html(root, _current(current))
        rows = json.loads(next((root / "index").rglob("*.json")).read_text())["files"]
        seen[jobs] = (
            [(e.path, document(e)) for e in contents.entries],
            [(e.path, document(e)) for e in contents.history_entries],
            [(p.path, p.detail) for p in contents.problems],
            {rel: {k: v for k, v in row.items() if k != "stamp"} for rel, row in rows.items()},
        )
    assert len(seen["1"][1]) == 10 and len(seen["1"][2]) == 1 and "schema is missing" in seen["1"][2][0][1]
    assert seen["1"] == seen["3"]


def _pid_of(_: int) -> int:
    # Busy for a while: a worker that took every item before the others started (a loaded
    # 2-core CI machine, once) would leave one pid, and the test would show nothing.
    time.sleep(0.1)
    return os.getpid()


def test_pinreport_jobs_must_be_a_positive_number(monkeypatch):
    from pinreport.base import worker_pool
    from pinreport.base.errors import UsageError

    for bad in ("0", "-2", "two"):
        monkeypatch.setenv("PINREPORT_JOBS", bad)
        with pytest.raises(UsageError, match="PINREPORT_JOBS"):
            worker_pool.jobs()
    monkeypatch.setenv("PINREPORT_JOBS", "1")
    assert worker_pool.map_in_processes(_pid_of, list(range(40))) == [os.getpid()] * 40


def test_the_callers_own_work_is_done_once_while_the_workers_work(monkeypatch):
    from pinreport.base import worker_pool

    for jobs in ("1", "2"):
        monkeypatch.setenv("PINREPORT_JOBS", jobs)
        done: list[int] = []
        got = worker_pool.map_in_processes(
            _pid_of, list(range(12)), meanwhile=lambda done=done: done.append(os.getpid())
        )
        assert done == [os.getpid()] and len(got) == 12
        assert (os.getpid() in got) == (jobs == "1")
