"""ci/nightly.sh end to end without a GPU, through the replay backend.

The store starts with the committed real H200 measurement (results/h200-quick, driver
580.159.04) as the only real baseline. Each "night" replays it relabelled as a newer release
(ci/tests/replay/*.yaml). Replayed files are filed under replay/ and are never baselines, so
every night is compared with the real 580.159.04 measurement, the previous real release; the
test checks that the verdict and the exit code follow the change injected by the script.

Needs the pinbench binary (build/ci-nogpu/harness/pinbench, or $PINBENCH_BIN) with the
`store` command, and pinreport (on PATH, or .venv/bin/pinreport, or $PINREPORT_BIN).
"""

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NIGHTLY = ROOT / "ci" / "nightly.sh"
SOURCE = ROOT / "results" / "h200-quick" / "results.json"
SCRIPTS = Path(__file__).resolve().parent / "replay"
REAL_RELEASE = "580.159.04"


def _pinbench() -> Path:
    path = Path(os.environ.get("PINBENCH_BIN", ROOT / "build" / "ci-nogpu" / "harness" / "pinbench"))
    if not path.is_file():
        pytest.skip(f"{path} is not built (the CI builds it before pytest; or set PINBENCH_BIN)")
    probe = subprocess.run([str(path), "store", "add", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"{path} has no 'store add' command yet")
    return path


def _pinreport() -> Path:
    found = os.environ.get("PINREPORT_BIN") or shutil.which("pinreport")
    path = Path(found) if found else ROOT / ".venv" / "bin" / "pinreport"
    if not path.is_file():
        pytest.skip("pinreport is not installed (pip install -r reports/requirements.txt -e reports)")
    return path


@pytest.fixture(scope="module")
def tools() -> tuple[Path, Path]:
    return _pinbench(), _pinreport()


def _night(tools, store: Path | None, out: Path, script: str, *extra: str) -> subprocess.CompletedProcess:
    pinbench, pinreport = tools
    cmd = [
        "bash", str(NIGHTLY),
        "--replay-from", str(SOURCE), "--replay-script", str(SCRIPTS / script),
        *(["--store", str(store)] if store else []), "--out", str(out),
        "--skip-build", "--pinbench", str(pinbench), "--pinreport", str(pinreport),
        *extra,
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def _regressions(compare_txt: str) -> set[tuple[str, str, str]]:
    """(run id, metric, delta) of every REGRESSION against the previous release."""
    found, run = set(), None
    for line in compare_txt.splitlines():
        body = line.removeprefix("[REPLAYED] ").rstrip()
        if re.fullmatch(r"  \S+/\S+", body):
            run = body.strip()
            continue
        m = re.match(r"\s{4}(\S+)\s.*?\|\s*REGRESSION \(([^)]*)\)\s*\|", body)
        if m:
            found.add((run, m.group(1), m.group(2)))
    return found


def _stored(store: Path, namespace: str) -> list[str]:
    return sorted(str(p.relative_to(store / namespace).parent) for p in (store / namespace).rglob("*.json.gz"))


@pytest.fixture(scope="module")
def after_night_one(tools, tmp_path_factory):
    """A store holding the real baseline and night 1 (581.01, unchanged), and night 1's output."""
    base = tmp_path_factory.mktemp("nightly")
    store = base / "store"
    seeded = subprocess.run(
        [str(tools[0]), "store", "add", str(SOURCE), "--store", str(store)], capture_output=True, text=True
    )
    assert seeded.returncode == 0, seeded.stderr
    night = _night(tools, store, base / "night1", "night-a.yaml")
    return store, base / "night1", night


def test_night_one_unchanged_release_is_ok(after_night_one):
    store, out, night = after_night_one
    assert night.returncode == 0, night.stderr
    assert (out / "exit_code").read_text().strip() == "0"
    compare = (out / "compare.txt").read_text()
    assert f"previous release {REAL_RELEASE}: 1 stored file(s)" in compare
    assert "driver release 581.01" in compare
    assert _regressions(compare) == set()
    assert all(line.startswith("[REPLAYED]") for line in compare.splitlines() if line)
    # The replayed night is filed under replay/ and never among the real baselines.
    assert _stored(store, "real") == [f"linux/linux/nvidia-h200/1gpu/{REAL_RELEASE}"]
    assert _stored(store, "replay") == ["linux/linux/nvidia-h200/1gpu/581.01"]
    junit = (out / "junit.xml").read_text()
    assert "REPLAYED" in junit and 'failures="0"' in junit
    summary = (out / "summary.md").read_text()
    assert "[REPLAYED] OK: no regression (exit 0)" in summary
    assert "doctor: skipped" in summary
    # The answer (pinreport summary --markdown) before the verdict line, labelled as a replay.
    answer = summary[summary.index("## pinbench answer: ") : summary.index("**nightly:")]
    assert "**REPLAYED DATA**" in answer and f"**Since driver {REAL_RELEASE}:**" in answer
    assert "| [REPLAYED] cudaMallocHost | 1 |" in answer


def test_night_two_injected_regression_exits_1(tools, after_night_one, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(after_night_one[0], store)
    out = tmp_path / "night2"
    night = _night(tools, store, out, "night-b-regression.yaml")
    assert night.returncode == 1, night.stderr
    compare = (out / "compare.txt").read_text()
    assert "driver release 582.02" in compare
    assert f"previous release {REAL_RELEASE}: 1 stored file(s)" in compare
    # Exactly the injected change: +64 MiB held while allocated and after first use, on every
    # cudaMallocHost run of quick-overhead, and nothing else (residuals stay, other APIs stay).
    expected = {
        (f"quick-overhead/cudaMallocHost/{size}/x1/g1", f"cost.{step}.cuda.free", "+64.00 MiB")
        for size in ("64MiB", "256MiB", "1GiB", "4GiB")
        for step in ("after_alloc", "after_first_use")
    }
    assert _regressions(compare) == expected
    junit = (out / "junit.xml").read_text()
    assert 'type="REGRESSION"' in junit and "quick-overhead/cudaMallocHost/64MiB/x1/g1" in junit
    summary = (out / "summary.md").read_text()
    assert "[REPLAYED] REGRESSION" in summary and "(exit 1)" in summary
    assert (out / "exit_code").read_text().strip() == "1"
    assert sorted(_stored(store, "replay")) == [
        "linux/linux/nvidia-h200/1gpu/581.01",
        "linux/linux/nvidia-h200/1gpu/582.02",
    ]
    assert _stored(store, "real") == [f"linux/linux/nvidia-h200/1gpu/{REAL_RELEASE}"]
    for artifact in ("results.json", "junit.xml", "compare.txt", "summary.md", "run.log", "store.log"):
        assert (out / artifact).is_file(), artifact


def test_night_two_without_change_exits_0(tools, after_night_one, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(after_night_one[0], store)
    out = tmp_path / "night2"
    night = _night(tools, store, out, "night-b-same.yaml")
    assert night.returncode == 0, night.stderr
    compare = (out / "compare.txt").read_text()
    assert "driver release 582.02" in compare
    assert _regressions(compare) == set()
    assert "REGRESSION" not in (out / "junit.xml").read_text()


def test_rejected_replay_script_is_bad_input_not_infrastructure(tools, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("replay_script_version: 2\n")
    pinbench, pinreport = tools
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--replay-from", str(SOURCE), "--replay-script", str(bad),
         "--store", str(tmp_path / "store"), "--out", str(tmp_path / "out"),
         "--skip-build", "--pinbench", str(pinbench), "--pinreport", str(pinreport)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert night.returncode == 2, night.stderr
    assert "BAD INPUT" in (tmp_path / "out" / "summary.md").read_text()
    assert "replay_script_version 2 is not supported" in (tmp_path / "out" / "run.log").read_text()


def test_missing_pinbench_is_infrastructure(tmp_path):
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--store", str(tmp_path / "store"), "--out", str(tmp_path / "out"),
         "--skip-build", "--pinbench", str(tmp_path / "no-such-pinbench"), "--pinreport", "/bin/true"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert night.returncode == 3
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "INFRASTRUCTURE FAILURE in: find pinbench" in summary and "(not a regression)" in summary


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--store", "a", "--store-branch", "b"],
        ["--store-home", "branch:"],
        ["--store", "a", "--replay-from", "x"],
        ["--store", "a", "--bogus"],
    ],
)
def test_bad_options_exit_2(args, tmp_path):
    night = subprocess.run(["bash", str(NIGHTLY), "--out", str(tmp_path), *args], capture_output=True, text=True)
    assert night.returncode == 2
    assert "nightly:" in night.stderr


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_store_on_a_git_branch_is_committed_and_pushed(tools, tmp_path, monkeypatch):
    """--store-branch: the first night creates the branch, the second adds to it although
    another runner pushes to the branch while the second night is pushing (non-fast-forward:
    fetch, rebase, push again). pinreport's history index stays out of the branch and is kept
    under the cache directory instead."""
    monkeypatch.setenv("PINBENCH_CACHE", str(tmp_path / "cache"))
    remote = tmp_path / "remote.git"
    _git("init", "--quiet", "--bare", str(remote), cwd=tmp_path)
    repo = tmp_path / "checkout"
    _git("clone", "--quiet", str(remote), str(repo), cwd=tmp_path)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "main", cwd=repo)
    _git("push", "--quiet", "origin", "HEAD:refs/heads/main", cwd=repo)
    only = ("--only", "quick-overhead/cudaMallocHost/*", "--store-home", "branch:pinbench-store")
    only += ("--store-repo", str(repo))

    first = _night(tools, None, tmp_path / "n1", "night-a.yaml", *only)
    assert first.returncode == 0, (tmp_path / "n1" / "summary.md").read_text()

    # Another runner's commit, pushed by the remote's hook while the second night pushes.
    other = tmp_path / "other"
    _git("clone", "--quiet", "--branch", "pinbench-store", str(remote), str(other), cwd=tmp_path)
    # A branch to which an older nightly committed pinreport's history index (derived, rewritten
    # every night): the second night stops tracking it.
    (other / "store" / "index" / "real").mkdir(parents=True)
    (other / "store" / "index" / "real" / "old.json").write_text("{}\n")
    _git("add", ".", cwd=other)
    _git("-c", "user.name=o", "-c", "user.email=o@o", "commit", "--quiet", "-m", "index", cwd=other)
    _git("push", "--quiet", "origin", "pinbench-store", cwd=other)
    (other / "store" / "other-runner.txt").write_text("x\n")
    _git("add", ".", cwd=other)
    _git("-c", "user.name=o", "-c", "user.email=o@o", "commit", "--quiet", "-m", "other", cwd=other)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        f"[ -e '{tmp_path}/raced' ] && exit 0\ntouch '{tmp_path}/raced'\n"
        "env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES -u GIT_DIR "
        f"git -C '{other}' push --quiet origin pinbench-store\n"
    )
    hook.chmod(0o755)

    # No real baseline on this branch (replayed nights never are one): NO-BASELINE, exit 0.
    second = _night(tools, None, tmp_path / "n2", "night-b-same.yaml", *only)
    summary = (tmp_path / "n2" / "summary.md").read_text()
    assert second.returncode == 0, summary + (tmp_path / "n2" / "store-git.log").read_text()
    assert (tmp_path / "raced").exists()
    assert "pushed (attempt 2)" in summary

    files = _git("ls-tree", "-r", "--name-only", "pinbench-store", cwd=remote).split()
    assert "store/store.json" in files and "store/other-runner.txt" in files
    replayed = sorted(f.split("/")[6] for f in files if f.startswith("store/replay/"))
    assert replayed == ["581.01", "582.02"]
    assert not any(".lock" in f or ".tmp." in f for f in files)
    assert not any(f.startswith("store/index/") for f in files), files
    assert (tmp_path / "cache" / "store-index" / "origin-pinbench-store" / "real" / "old.json").is_file()
    assert len(_git("log", "--format=%H", "pinbench-store", cwd=remote).split()) == 4
    # The job's own checkout keeps no worktree behind.
    assert _git("worktree", "list", cwd=repo).count("\n") == 1


@pytest.mark.parametrize("how", ["kept build", "package"])
def test_without_a_gpu_doctor_ends_the_job_as_infrastructure(tools, tmp_path, how):
    """The real path on this GPU-less machine: doctor fails, exit 3, nothing run or stored. The
    same with --package (the Windows runners' way: a packaged pinbench, nothing built)."""
    if shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0:
        pytest.skip("a GPU is present: the real path would measure")
    pinbench, pinreport = tools
    given = ["--skip-build", "--pinbench", str(pinbench)] if how == "kept build" else ["--package", str(pinbench)]
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--store", str(tmp_path / "store"), "--out", str(tmp_path / "out"),
         *given, "--pinreport", str(pinreport)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert night.returncode == 3
    out = tmp_path / "out"
    summary = (out / "summary.md").read_text()
    assert "- build: skipped" in summary and not (out / "build.log").exists()
    assert "INFRASTRUCTURE FAILURE in: doctor (not a regression) (exit 3)" in summary
    assert (out / "doctor.json").is_file() and (out / "doctor.txt").is_file()
    assert not (out / "results.json").exists() and not (tmp_path / "store").exists()


def test_a_cancelled_night_says_so_and_resume_finishes_it(tools, tmp_path):
    """SIGINT during the run step: the night exits 130, stores nothing, keeps a partial
    results.json; --resume with the same --out finishes it, keeps its finished runs and stores
    one file (a cancelled night resumed)."""
    pinbench, pinreport = tools
    store, out = tmp_path / "store", tmp_path / "out"
    slow = tmp_path / "slow.yaml"
    slow.write_text(
        'replay_script_version: 1\nrelabel:\n  driver_release: "581.01"\n'
        'inject:\n  - what: slow\n    runs: "*"\n    ms: 150\n'
    )
    cmd = [
        "bash", str(NIGHTLY), "--replay-from", str(SOURCE), "--replay-script", str(slow),
        "--store", str(store), "--out", str(out), "--skip-build", "--skip-bench",
        "--pinbench", str(pinbench), "--pinreport", str(pinreport), "--only", "quick-overhead/*/64MiB/*",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    night = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    run = None
    for _ in range(200):  # wait until pinbench run has started a few runs, then cancel it alone
        ps = subprocess.run(["pgrep", "-f", f"{pinbench} run --backend replay"], capture_output=True, text=True)
        if ps.stdout.strip() and (out / "results.json").exists():
            run = int(ps.stdout.split()[0])
            break
        time.sleep(0.05)
    assert run is not None, "pinbench run never started"
    os.kill(run, 2)
    text, _ = night.communicate(timeout=120)
    assert night.returncode == 130, text
    assert "CANCELLED" in text and "--resume" in text
    partial = (out / "results.json").read_text()
    assert '"complete": false' in partial and '"signal": "SIGINT"' in partial
    assert not (store / "replay").exists() or _stored(store, "replay") == [], "a partial night is never stored"

    again = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    done = (out / "results.json").read_text()
    assert '"complete": true' in done and '"resumed": [' in done
    assert len(_stored(store, "replay")) == 1
