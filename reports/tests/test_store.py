import json
import os
import subprocess
from pathlib import Path

import pytest
from builders import add_to_store, make_store, results_doc, rewrite_stored, run_doc, stored_text
from pinreport.base.schema import TEST_DOUBLE_MARKER
from pinreport.readers.environment import store_key
from pinreport.readers.results import ResultsFile, measurement_id
from pinreport.readers.store_key import StoreKey, slug
from pinreport.store.files import (
    REAL,
    REPLAY,
    compact_timestamp,
    compressed_bytes,
    content_hash,
    entry_path,
    legacy_content_hash,
    read_stored_bytes,
)
from pinreport.store.reading import read_for_compare, read_for_html, read_store


def _current(doc):
    """A current results file as the commands read it (the store readers take a ResultsFile)."""
    return ResultsFile("current.json", doc)


def test_entry_path_layout(tmp_path):
    key = StoreKey("linux", "linux", "nvidia-h200", "1gpu", "580.65.06")
    p = entry_path(tmp_path, key, "2025-06-01T10:00:00Z", "0123456789ab")
    assert p == tmp_path / "real/linux/linux/nvidia-h200/1gpu/580.65.06/20250601T100000Z-0123456789ab.json.gz"
    p = entry_path(tmp_path, key, "2025-06-01T10:00:00.250Z", "0123456789ab", REPLAY, compressed=False)
    assert p.relative_to(tmp_path).parts[0] == "replay"
    assert p.name == "20250601T100000Z-0123456789ab.json"


@pytest.mark.parametrize(
    "bad",
    [
        dict(hash12="xyz"),
        dict(namespace="other"),
        dict(key=StoreKey("linux", "..", "gpu", "1gpu", "1.0")),
        dict(key=StoreKey("linux", "linux", "a/b", "1gpu", "1.0")),
    ],
)
def test_entry_path_rejects_unsafe_parts(tmp_path, bad):
    args = dict(
        key=StoreKey("linux", "linux", "gpu", "1gpu", "1.0"),
        started_at="2025-06-01T10:00:00Z",
        hash12="0123456789ab",
        namespace=REAL,
    )
    args.update(bad)
    with pytest.raises(ValueError):
        entry_path(tmp_path, **args)


def test_store_key_mirrors_harness():
    env = results_doc(
        [run_doc()],
        platform="windows",
        driver_model="WDDM",
        gpu="NVIDIA GeForce RTX 4090",
        gpu_count=2,
        release="566.36",
    )["environment"]
    assert store_key(env) == StoreKey("windows", "wddm", "nvidia-geforce-rtx-4090", "2gpu", "566.36")
    assert store_key({}) == StoreKey(
        "unknown-platform", "unknown-driver-model", "unknown-gpu", "unknown-gpu-count", "unknown-release"
    )
    assert slug("  NVIDIA H200 (141GB) ") == "nvidia-h200-141gb"


def test_store_key_of_mixed_machine_and_odd_release():
    # docs/store.md: distinct per-device slugs in device order joined by "--"; the release keeps
    # 0-9 A-Z a-z . - _ and loses leading/trailing '.' and '-'.
    env = results_doc([run_doc()], gpu_count=3)["environment"]
    env["devices"][0].update(name="NVIDIA RTX A6000", driver_model={"current": "WDDM"})
    env["devices"][1].update(name="NVIDIA H200", driver_model={"current": "TCC"})
    env["devices"][2].update(name="NVIDIA H200", driver_model={"current": "unknown"})
    env["driver"]["release"] = "-580.65 beta/2."
    key = store_key(env)
    # As the harness files it: a device whose model is unknown counts beside the known ones.
    assert (key.driver_model, key.gpu, key.release) == (
        "wddm--tcc--unknown",
        "nvidia-rtx-a6000--nvidia-h200",
        "580.65-beta-2",
    )
    env["driver"]["release"] = {"unavailable": "NVML: not found"}
    env["platform"] = "unknown"
    assert (store_key(env).release, store_key(env).platform) == ("unknown-release", "unknown-platform")


def test_content_hash_is_xxh3_64_and_version_1_names_are_fnv1a_64():
    # Published XXH3-64 vector: "" -> 2d06800538d394c2; FNV-1a 64: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c.
    assert content_hash(b"") == "2d06800538d3"
    assert legacy_content_hash(b"") == "cbf29ce48422"
    assert legacy_content_hash(b"a") == "af63dc4c8601"
    assert compact_timestamp("2025-06-01T10:00:00.5Z") == "20250601T100000Z"
    assert compact_timestamp("yesterday") == "unknown-started-at"


def test_files_whose_place_or_bytes_disagree_are_named(tmp_path):
    root = make_store(tmp_path / "store")
    good = add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"))
    edited = add_to_store(root, results_doc([run_doc()], started_at="2025-06-02T10:00:00Z"))
    rewrite_stored(edited, stored_text(edited).replace('"wall_ms": 500.0', '"wall_ms": 501.0', 1))
    wrong_key = add_to_store(root, results_doc([run_doc()], started_at="2025-06-03T10:00:00Z", release="572.16"))
    moved = wrong_key.parents[1] / "580.65.06" / wrong_key.name
    wrong_key.rename(moved)
    wrong_time = add_to_store(root, results_doc([run_doc()], started_at="2025-06-04T10:00:00Z"))
    renamed = wrong_time.with_name("20250605T100000Z" + wrong_time.name[16:])
    wrong_time.rename(renamed)
    stray = root / "real" / "stray.json"
    stray.write_text(stored_text(good))
    measured_in_replay = add_to_store(
        root, results_doc([run_doc()], started_at="2025-06-06T10:00:00Z"), namespace=REPLAY
    )

    real = read_store(root)
    assert [e.path for e in real.entries] == [str(good)]
    why = {p.path: p.detail for p in real.problems}
    assert why[str(edited)].startswith("its bytes do not match the hash")
    assert why[str(moved)].startswith("its environment gives the key linux/linux/nvidia-h200/1gpu/572.16")
    assert why[str(renamed)].startswith("its started_at '2025-06-04T10:00:00Z' does not match")
    assert why[str(stray)].startswith("not at real/<platform>")
    assert len(why) == 4
    replay = read_store(root, (REPLAY,))
    assert [p.path for p in replay.problems] == [str(measured_in_replay)]
    assert replay.problems[0].detail == "measured data under replay/"


def test_read_store_names_corrupted_files_and_reads_the_rest(tmp_path):
    root = make_store(tmp_path / "store")
    good1 = add_to_store(root, results_doc([run_doc()], started_at="2025-06-02T10:00:00Z"))
    good2 = add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"))
    truncated = good1.parent / "20250603T100000Z-aaaaaaaaaaaa.json"
    truncated.write_text(stored_text(good1)[:100])
    other_version = good1.parent / "20250604T100000Z-bbbbbbbbbbbb.json"
    doc = json.loads(stored_text(good1))
    doc["schema_version"] = 6
    other_version.write_text(json.dumps(doc))
    (good1.parent / "20250605T100000Z-cccccccccccc.json.tmp.123.abcd").write_text("{")  # a writer's temp

    contents = read_store(root)
    assert [Path(e.path) for e in contents.entries] == [good2, good1]  # oldest first
    assert [e.path for e in contents.problems] == [str(truncated), str(other_version)]
    assert "invalid JSON" in str(contents.problems[0])
    assert "results schema version 6 is not supported" in str(contents.problems[1])


def test_store_without_marker_is_not_read(tmp_path):
    root = tmp_path / "store"
    root.mkdir()
    contents = read_store(root)
    assert contents.entries == []
    assert len(contents.problems) == 1
    assert "store.json" in contents.problems[0].path
    assert "not a pinbench store" in str(contents.problems[0])


def test_store_of_another_version_is_not_read(tmp_path):
    root = make_store(tmp_path / "store")
    add_to_store(root, results_doc([run_doc()]))
    (root / "store.json").write_text(json.dumps({"schema": "pinbench.store", "schema_version": 9}))
    contents = read_store(root)
    assert contents.entries == []
    assert "store schema version 9 is not supported" in str(contents.problems[0])


def test_replayed_files_are_never_read_as_real(tmp_path):
    root = make_store(tmp_path / "store")
    replayed = results_doc([run_doc()], replay_of="x.json")
    in_replay = add_to_store(root, replayed)
    misfiled = add_to_store(root, replayed, namespace=REAL)
    real = read_store(root)
    assert real.entries == []
    assert [p.path for p in real.problems] == [str(misfiled)]
    assert "never a baseline" in str(real.problems[0])
    replay = read_store(root, (REPLAY,))
    assert [e.path for e in replay.entries] == [str(in_replay)]
    assert replay.entries[0].namespace == REPLAY


def test_test_double_results_are_never_a_baseline(tmp_path):
    # The harness refuses them (`store add`); a file put in by hand is named, never read as real,
    # whether its release or only its device name carries the marker.
    root = make_store(tmp_path / "store")
    real = add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"))
    by_release = add_to_store(
        root, results_doc([run_doc()], release=f"0.0-{TEST_DOUBLE_MARKER}", started_at="2025-06-02T10:00:00Z")
    )
    by_name = add_to_store(
        root, results_doc([run_doc()], gpu=f"pinbench {TEST_DOUBLE_MARKER} GPU", started_at="2025-06-03T10:00:00Z")
    )
    contents = read_store(root)
    assert [e.path for e in contents.entries] == [str(real)]
    assert sorted(p.path for p in contents.problems) == sorted([str(by_release), str(by_name)])
    assert all("test-double driver: never a baseline" in str(p) for p in contents.problems)


def test_measurement_id_ignores_formatting(tmp_path):
    doc = results_doc([run_doc()])
    assert measurement_id(json.loads(json.dumps(doc, indent=4))) == measurement_id(doc)
    other = results_doc([run_doc()], started_at="2025-06-02T10:00:00Z")
    assert measurement_id(other) != measurement_id(doc)


def test_compressed_files_are_read_and_hashed_uncompressed(tmp_path):
    """Store version 3 keeps files gzip-compressed; the name's hash is of the uncompressed bytes.
    Plain files of a version-2 store are read beside them."""
    root = make_store(tmp_path / "store")
    plain = add_to_store(root, results_doc([run_doc()], started_at="2025-06-01T10:00:00Z"), compressed=False)
    doc = results_doc([run_doc()], started_at="2025-06-02T10:00:00Z")
    data = json.dumps(doc, indent=1).encode()
    gz = entry_path(root, store_key(doc["environment"]), doc["started_at"], content_hash(data))
    gz.write_bytes(compressed_bytes(data))
    assert gz.name.endswith(".json.gz") and gz.read_bytes()[:2] == b"\x1f\x8b"
    assert read_stored_bytes(gz) == data
    contents = read_store(root)
    assert contents.problems == []
    assert [e.path for e in contents.entries] == [str(plain), str(gz)]
    gz.write_bytes(compressed_bytes(data + b" "))  # other bytes under the same name
    damaged = entry_path(root, store_key(doc["environment"]), "2025-06-03T10:00:00Z", "0123456789ab")
    damaged.write_bytes(b"\x1f\x8bnot gzip")
    problems = sorted(p.detail for p in read_store(root).problems)
    assert problems[0].startswith("its bytes do not match the hash") and "not a valid gzip file" in problems[1]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs and symbolic links")
def test_entries_that_are_not_regular_files_are_named_never_opened(tmp_path):
    """Before: a FIFO in a store made `pinreport compare` hang; links and directories named like
    stored files were skipped or followed. Each is named, none is opened."""
    root = make_store(tmp_path / "store")
    doc = results_doc([run_doc()], started_at="2025-06-01T10:00:00Z")
    stored = add_to_store(root, doc)
    d = stored.parent
    os.mkfifo(d / "20250602T100000Z-0123456789ab.json.gz")
    (d / "loop.json").symlink_to("loop.json")
    (d / "20250603T100000Z-0123456789ab.json").symlink_to(stored)
    (d / "20250604T100000Z-0123456789ab.json").mkdir()
    (d / "deeper").mkdir()
    expected = {
        "20250602T100000Z-0123456789ab.json.gz": "a FIFO, not a stored file (never opened)",
        "20250603T100000Z-0123456789ab.json": "a symbolic link, not a stored file (never opened)",
        "20250604T100000Z-0123456789ab.json": "a directory, not a stored file (never opened)",
        "deeper": "a directory, not a stored file (never opened)",
        "loop.json": "a symbolic link, not a stored file (never opened)",
    }
    for contents in (read_store(root), read_for_compare(root, _current(doc)), read_for_html(root, _current(doc))):
        assert [e.path for e in contents.entries] == [str(stored)]
        assert {Path(p.path).name: p.detail for p in contents.problems} == expected


def test_windows_reserved_names_never_become_folder_names():
    env = {
        "platform": "CON",
        "driver": {"release": "nul.580"},
        "cuda_device_count": 1,
        "devices": [{"name": "NUL", "driver_model": {"current": "aux"}}],
    }
    assert store_key(env) == StoreKey("con_", "aux_", "nul_", "1gpu", "nul_.580")
    env["devices"][0]["name"] = "com10"
    env["platform"] = "console"
    assert store_key(env).gpu == "com10" and store_key(env).platform == "console"


PINBENCH = Path(os.environ.get("PINBENCH_EXE", Path(__file__).resolve().parents[2] / "build/ci-nogpu/harness/pinbench"))
needs_pinbench = pytest.mark.skipif(not PINBENCH.is_file(), reason="needs the pinbench binary (PINBENCH_EXE)")


def _pinbench(*args):
    return subprocess.run([str(PINBENCH), *map(str, args)], capture_output=True, text=True, timeout=60)


@needs_pinbench
def test_reading_a_missing_store_is_exit_2_and_creates_nothing(tmp_path):
    """Before: `pinbench store list --store TYPO` created TYPO/store.json and printed nothing, and
    `store add` of an invalid file created the store before refusing the file."""
    typo = tmp_path / "TYPO"
    p = _pinbench("store", "list", "--store", typo)
    assert p.returncode == 2 and "no such store" in p.stderr, p.stderr
    assert not typo.exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "pinbench.results",')
    p = _pinbench("store", "add", bad, "--store", typo)
    assert p.returncode == 2 and "invalid JSON" in p.stderr, p.stderr
    assert not typo.exists()


@needs_pinbench
def test_the_harness_writes_compressed_files_that_pinreport_reads(tmp_path):
    """Both languages agree on store version 3: the harness's .json.gz, hashed uncompressed."""
    doc = results_doc([run_doc()], started_at="2025-06-01T10:00:00Z")
    doc["measurement_id"] = "00c0ffee5eed1d00"
    source = tmp_path / "r.json"
    source.write_text(json.dumps(doc, indent=1))
    p = _pinbench("store", "add", source, "--store", tmp_path / "store")
    assert p.returncode == 0, p.stderr
    (stored,) = (tmp_path / "store/real").rglob("*.json.gz")
    assert read_stored_bytes(stored) == source.read_bytes()
    assert stored.name.endswith(f"-{content_hash(source.read_bytes())}.json.gz")
    contents = read_store(tmp_path / "store")
    assert contents.problems == [] and [e.path for e in contents.entries] == [str(stored)]
    if hasattr(os, "mkfifo"):  # a FIFO is reported by `store list` too, which does not block
        os.mkfifo(stored.parent / "20250602T100000Z-0123456789ab.json.gz")
        p = _pinbench("store", "list", "--store", tmp_path / "store")
        assert p.returncode == 2 and "a FIFO, not a stored file (never opened)" in p.stderr, p.stderr
