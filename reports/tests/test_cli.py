"""End to end through the command line: exit codes, output, the bad-input paths."""

import json
import shutil
import subprocess
import sys

import pytest
from builders import GiB, MiB, add_to_store, document, make_store, results_doc, run_doc, write_json
from conftest import FIXTURES
from pinreport.cli import main
from pinreport.readers.results import load_results


@pytest.fixture
def store(tmp_path):
    root = make_store(tmp_path / "store")
    add_to_store(root, document(load_results(FIXTURES / "baseline-572.16.json")))
    return root


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_injected_regression_exits_1(store, capsys, tmp_path):
    junit = tmp_path / "verdicts.xml"
    code, out, _ = _run(
        capsys, "compare", "--store", store, "--current", FIXTURES / "current-580.65.06.json", "--junit", junit
    )
    assert code == 1
    assert "baseline: previous release 572.16: 1 stored file(s)" in out
    line = next(x for x in out.splitlines() if "cost.after_first_use.cuda.free" in x and "REGRESSION" in x)
    assert "+8.00 MiB" in line
    assert "exit code 1" in out
    assert junit.exists()


def test_a_a_exits_0(store, capsys):
    code, out, _ = _run(capsys, "compare", "--store", store, "--current", FIXTURES / "baseline-572.16.json")
    # The current file is the stored one: it is not its own history.
    assert code == 0, out
    assert "REGRESSION" not in out and "IMPROVEMENT" not in out


def test_corrupted_store_file_is_named_and_the_rest_analysed(store, capsys):
    bad = next(store.rglob("*.json.gz"))  # a stored file (store version 3: compressed)
    shutil.copy(FIXTURES / "bad-truncated.json", bad.parent / "20250502T000000Z-0123456789ab.json")
    code, out, _ = _run(capsys, "compare", "--store", store, "--current", FIXTURES / "current-580.65.06.json")
    assert code == 2
    assert "20250502T000000Z-0123456789ab.json: invalid JSON" in out
    assert "REGRESSION" in out  # the good baseline was still used


def test_bad_current_file_exits_2_and_names_it(store, capsys):
    code, _, err = _run(capsys, "compare", "--store", store, "--current", FIXTURES / "bad-truncated.json")
    assert code == 2
    assert "bad-truncated.json: invalid JSON" in err


@pytest.mark.parametrize("command", ["compare", "html", "reserve"])
def test_missing_store_directory_exits_2_before_analysing(tmp_path, capsys, command):
    """Before: a typo in --store analysed everything against no baseline, then exited 2."""
    extra = {"compare": ["--current", FIXTURES / "current-580.65.06.json"],
             "html": ["--current", FIXTURES / "current-580.65.06.json", "-o", tmp_path / "r.html"],
             "reserve": ["--size", "1GiB"]}[command]  # fmt: skip
    code, out, err = _run(capsys, command, "--store", tmp_path / "none", *extra)
    assert code == 2
    assert out == ""
    assert err == f"error: {tmp_path / 'none'}: --store does not exist (give the baseline store directory)\n"
    assert not (tmp_path / "r.html").exists()


def test_empty_store_directory_is_bad_input_but_current_is_analysed(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, _ = _run(
        capsys, "compare", "--store", tmp_path / "empty", "--current", FIXTURES / "current-580.65.06.json"
    )
    assert code == 2
    assert "not a pinbench store" in out
    assert "NO-BASELINE" in out


@pytest.mark.parametrize(("option", "value"), [("--min-repeats", "-5"), ("--min-repeats", "0"), ("--min-nights", "0")])
def test_counts_below_one_are_refused(store, capsys, option, value):
    """Before: --min-repeats -5 was accepted (and silently raised to 1)."""
    with pytest.raises(SystemExit) as e:
        main(["compare", "--store", str(store), "--current", str(FIXTURES / "current-580.65.06.json"), option, value])
    assert e.value.code == 2
    assert f"must be 1 or more: '{value}'" in capsys.readouterr().err


def test_failed_control_exits_3(store, capsys, tmp_path):
    doc = json.loads((FIXTURES / "current-580.65.06.json").read_text())
    doc["controls"] = {"null": {"verdict": "PASS"}, "positive": {"verdict": "FAIL", "error": "probe blind"}}
    code, out, _ = _run(capsys, "compare", "--store", store, "--current", write_json(tmp_path / "c.json", doc))
    assert code == 3
    assert "control positive FAILED: probe blind" in out


def test_violation_exits_1(tmp_path, capsys):
    doc = results_doc([run_doc(size=1 * GiB, costs={"cuda.free": [300 * MiB] * 7})])
    code, out, _ = _run(
        capsys, "compare", "--store", make_store(tmp_path / "s"), "--current", write_json(tmp_path / "c.json", doc)
    )
    assert code == 1
    assert "VIOLATION" in out
    code, out, _ = _run(
        capsys, "compare", "--store", tmp_path / "s", "--current", tmp_path / "c.json", "--band", "0.10,0.30"
    )
    assert code == 0


def test_replayed_current_is_labelled_everywhere(store, tmp_path, capsys):
    doc = json.loads((FIXTURES / "current-580.65.06.json").read_text())
    doc["backend"] = "replay"
    doc["replay"] = {
        "source": "x.json",
        "source_backend": "cuda",
        "script": "s.yaml",
        "note": "REPLAYED DATA derived from a real results file; not a measurement",
    }
    code, out, _ = _run(capsys, "compare", "--store", store, "--current", write_json(tmp_path / "r.json", doc))
    assert code == 1
    assert all(line.startswith("[REPLAYED] ") for line in out.splitlines() if line)


def test_options(store, capsys):
    code, _, err = _run(capsys, "compare", "--store", store, "--current", "x.json", "--band", "nonsense")
    assert code == 2 and "--band" in err
    with pytest.raises(SystemExit) as e:
        main(["compare", "--store", str(store), "--current", "x.json", "--alpha", "2"])
    assert e.value.code == 2
    code, out, _ = _run(
        capsys,
        "compare",
        "--store",
        store,
        "--current",
        FIXTURES / "current-580.65.06.json",
        "--scenario-floor",
        "quick-overhead=5",
    )
    assert code == 0  # 2 -> 10 MiB is +400%, under a 500% floor


def _reserve_store(tmp_path, namespace_replay):
    root = make_store(tmp_path / "rs")
    runs = [
        run_doc(size=s, costs={"cuda.free": [int(16 * MiB + 0.125 * s)] * 7}) for s in (64 * MiB, 256 * MiB, 1 * GiB)
    ]
    add_to_store(root, results_doc(runs, release="572.16", replay_of="x.json" if namespace_replay else None))
    return root


def test_reserve(tmp_path, capsys):
    root = _reserve_store(tmp_path, False)
    code, out, _ = _run(capsys, "reserve", "--store", root, "--size", "2GiB", "--gpus", "4")
    assert code == 0, out
    assert "linux/linux/nvidia-h200/1gpu driver 572.16  cudaMallocHost" in out
    # 16 MiB + 0.125 x 2 GiB + one 2 MiB granule = 274 MiB per GPU, 1096 MiB over 4.
    assert "reserve 274.00 MiB per GPU" in out
    assert "1.07 GiB over 4 GPU(s)" in out
    assert "assumes each of the 4 GPUs" in out


def test_reserve_replay_namespace_is_labelled(tmp_path, capsys):
    root = _reserve_store(tmp_path, True)
    code, out, err = _run(capsys, "reserve", "--store", root, "--size", "2GiB")
    assert code == 2 and "no stored results" in err  # replayed data is not in the real namespace
    code, out, _ = _run(capsys, "reserve", "--store", root, "--size", "2GiB", "--replay")
    assert code == 0
    assert all(line.startswith("[REPLAYED] ") for line in out.splitlines() if line)


def test_reserve_reads_only_the_release_it_fits(tmp_path, capsys):
    """The newest numbered release with a usable file is fitted, and only its files are read: a
    broken file of an older release is not named, one of a newer release whose only file is
    broken is named and passed over."""
    root = _reserve_store(tmp_path, False)
    doc = results_doc([run_doc(size=64 * MiB, costs={"cuda.free": [32 * MiB] * 7})], release="570.01")
    older = add_to_store(root, doc)
    older.write_text("{ not json")
    newer = add_to_store(root, results_doc([run_doc()], release="581.01"))
    newer.write_text("{ not json")
    add_to_store(root, results_doc([run_doc()], release="dev-build"))  # numbered releases come first
    code, out, err = _run(capsys, "reserve", "--store", root, "--size", "2GiB")
    assert "driver 572.16" in out and "reserve 274.00 MiB per GPU" in out
    assert "581.01" in err and "570.01" not in err and "dev-build" not in out
    assert code == 2  # a file it read was broken
    code, out, err = _run(capsys, "reserve", "--store", root, "--size", "2GiB", "--driver", "572.16")
    assert (code, err) == (0, "")


def test_reserve_bad_input(tmp_path, capsys):
    root = _reserve_store(tmp_path, False)
    assert _run(capsys, "reserve", "--store", root, "--size", "2 parsecs")[0] == 2
    assert _run(capsys, "reserve", "--store", root, "--size", "2GiB", "--driver", "1.0")[0] == 2
    assert _run(capsys, "reserve", "--store", root, "--size", "2GiB", "--gpus", "0")[0] == 2


def test_console_script_entry_point(store):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pinreport",
            "compare",
            "--store",
            str(store),
            "--current",
            str(FIXTURES / "current-580.65.06.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert "REGRESSION" in proc.stdout


@pytest.mark.parametrize("broken", ["store.json", "night"])
def test_html_of_an_error_exit_never_says_pass(store, capsys, tmp_path, broken):
    """Issue 58, defect 1: an unreadable store.json, or one unreadable night, printed
    `h.html: PASS` and wrote a page whose banner said PASS beside exit 2."""
    if broken == "store.json":
        (store / "store.json").write_text("garbage\n")
    else:
        bad = next(store.rglob("*.json.gz"))
        shutil.copy(FIXTURES / "bad-truncated.json", bad.parent / "20250502T000000Z-0123456789ab.json")
    page = tmp_path / "h.html"
    current = FIXTURES / "baseline-572.16.json"  # passes against a readable store (test_a_a_exits_0)
    code, out, err = _run(capsys, "html", "--store", store, "--current", current, "-o", page)
    assert code == 2, (out, err)
    assert "PASS" not in out
    assert out.strip() == f"{page}: BAD INPUT"
    assert "error: " in err
    html = page.read_text()
    assert 'id="verdict">BAD INPUT' in html
    assert 'id="verdict">PASS' not in html
    assert "exit code 2" in html


def test_html_of_one_results_file_needs_no_store(capsys, tmp_path):
    """Issue 58: `pinreport html` asked for --store even for one results file; `summary` did not."""
    page = tmp_path / "one.html"
    current = FIXTURES / "baseline-572.16.json"
    code, out, err = _run(capsys, "html", "--current", current, "-o", page)
    assert code == 0, (out, err)
    assert out.strip() == f"{page}: PASS"
    assert 'id="verdict">PASS' in page.read_text()


def test_an_empty_store_is_refused(capsys, tmp_path):
    current = write_json(tmp_path / "c.json", results_doc([run_doc()]))
    code, out, err = _run(capsys, "summary", current, "--store", "")
    assert (code, out) == (2, "")
    assert err == "error: --store is empty (give the baseline store directory)\n"
