import json
from pathlib import Path

import pytest
from builders import add_to_store, make_store, results_doc, run_doc
from pinreport.environment import StoreKey, slug, store_key
from pinreport.store import (
    REAL,
    REPLAY,
    compact_timestamp,
    content_hash,
    entry_path,
    legacy_content_hash,
    measurement_id,
    read_store,
)


def test_entry_path_layout(tmp_path):
    key = StoreKey("linux", "linux", "nvidia-h200", "1gpu", "580.65.06")
    p = entry_path(tmp_path, key, "2025-06-01T10:00:00Z", "0123456789ab")
    assert p == tmp_path / "real/linux/linux/nvidia-h200/1gpu/580.65.06/20250601T100000Z-0123456789ab.json"
    p = entry_path(tmp_path, key, "2025-06-01T10:00:00.250Z", "0123456789ab", REPLAY)
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
    edited.write_text(edited.read_text().replace('"wall_ms": 500.0', '"wall_ms": 501.0', 1))
    wrong_key = add_to_store(root, results_doc([run_doc()], started_at="2025-06-03T10:00:00Z", release="572.16"))
    moved = wrong_key.parents[1] / "580.65.06" / wrong_key.name
    wrong_key.rename(moved)
    wrong_time = add_to_store(root, results_doc([run_doc()], started_at="2025-06-04T10:00:00Z"))
    renamed = wrong_time.with_name("20250605T100000Z" + wrong_time.name[16:])
    wrong_time.rename(renamed)
    stray = root / "real" / "stray.json"
    stray.write_text(good.read_text())
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
    truncated.write_text(good1.read_text()[:100])
    other_version = good1.parent / "20250604T100000Z-bbbbbbbbbbbb.json"
    doc = json.loads(good1.read_text())
    doc["schema_version"] = 5
    other_version.write_text(json.dumps(doc))
    (good1.parent / "20250605T100000Z-cccccccccccc.json.tmp.123.abcd").write_text("{")  # a writer's temp

    contents = read_store(root)
    assert [Path(e.path) for e in contents.entries] == [good2, good1]  # oldest first
    assert [e.path for e in contents.problems] == [str(truncated), str(other_version)]
    assert "invalid JSON" in str(contents.problems[0])
    assert "results schema version 5 is not supported" in str(contents.problems[1])


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


def test_measurement_id_ignores_formatting(tmp_path):
    doc = results_doc([run_doc()])
    assert measurement_id(json.loads(json.dumps(doc, indent=4))) == measurement_id(doc)
    other = results_doc([run_doc()], started_at="2025-06-02T10:00:00Z")
    assert measurement_id(other) != measurement_id(doc)
