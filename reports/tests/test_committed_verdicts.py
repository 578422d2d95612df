"""Behaviour on real data, enforced: pinreport's verdicts on the committed H200 results (14 store
and current pairs, a replayed regression among them, and 3 A/A sets) equal the summary committed
in tools/verdicts/committed_verdicts.json. A deliberate change of a verdict rewrites that file
(`tools/verdicts/committed_verdicts.py write`) and says why in its commit; `dump` gives every
verdict to diff between two trees (tools/verdicts/README.md)."""

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tools/verdicts"))
import committed_verdicts  # noqa: E402

PINBENCH = Path(os.environ.get("PINBENCH_EXE", REPO_ROOT / "build/ci-nogpu/harness/pinbench"))


@pytest.mark.skipif(not PINBENCH.exists(), reason=f"{PINBENCH} is not built (ci/test.sh builds it first)")
def test_the_committed_results_get_the_committed_verdicts(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setenv("PINBENCH_EXE", str(PINBENCH))
    want = json.loads(committed_verdicts.GOLDEN.read_text())
    got = committed_verdicts.summary(tmp_path)
    assert committed_verdicts.differences(got, want) == []
    # The summary is worth comparing only if it holds every kind of outcome.
    exits = {p["exit"] for p in got["pairs"]}
    assert {0, 1, 3} <= exits, exits
    assert any(p["changed"] for p in got["pairs"]), "no pair has a regression to keep"


def test_a_moved_verdict_is_named():
    want = {
        "pairs": [
            {
                "store": "s",
                "current": "c",
                "exit": 0,
                "bad_input": 0,
                "infrastructure": 0,
                "verdicts": {"SAME": 2},
                "changed": [],
                "sha256": "a",
            }
        ],
        "aa": {"x": {"sha256": "1"}},
    }
    got = {"pairs": [dict(want["pairs"][0], verdicts={"SAME": 1, "REGRESSION": 1}, exit=1, sha256="b")],
           "aa": {"x": {"sha256": "1"}}}  # fmt: skip
    moved = committed_verdicts.differences(got, want)
    assert moved == [
        "s <- c: exit 0 -> 1",
        "s <- c: verdicts {'SAME': 2} -> {'SAME': 1, 'REGRESSION': 1}",
        "s <- c: sha256 'a' -> 'b'",
    ]
