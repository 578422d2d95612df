"""The hostile-input corpus (ci/tests/hostile/cases.py) against both tools, run as a user runs
them: pinbench (PINBENCH_EXE, else the ci-nogpu build) and pinreport (`python -m pinreport`).

Every case must end with the exit code its case gives, which the README's exit-code table for
that tool must list; and with no traceback, no abort (a signal), no hang past its bound and no
file changed in its work folder other than those it was asked to write (the folder is
snapshotted before and after).
"""

import hashlib
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent / "hostile"))

from cases import CASES, Case  # noqa: E402

PINBENCH = Path(os.environ.get("PINBENCH_EXE") or ROOT / "build/ci-nogpu/harness/pinbench")
MEMORY_BOUND = 8 * 2**30  # address space of each tool run
BASE = ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
TRACE = ROOT / "results/h200-trace/trace-pin-each-api.json"


def _documented_codes(readme: Path) -> set[int]:
    """The exit codes a README's "Exit codes" table lists (128+N counts as every code above 128)."""
    text = readme.read_text()
    table = text[text.index("Exit codes") :]
    codes = set()
    for m in re.finditer(r"^\| (\d+)(\+N)? \|", table, re.M):
        codes |= set(range(129, 256)) if m.group(2) else {int(m.group(1))}
    return codes


DOCUMENTED = {
    "pinbench": _documented_codes(ROOT / "README.md"),
    "pinreport": _documented_codes(ROOT / "reports/README.md"),
}


def _snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry below the folder: its type, identity and, for a regular file, its content."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                if st.st_size <= 64 * 2**20:
                    digest = hashlib.sha256(p.read_bytes()).hexdigest()
                else:  # the sparse files of the size limits
                    digest = (st.st_size, st.st_mtime_ns)
            else:
                digest = None
            out[str(p.relative_to(folder))] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_rdev, digest)
    return out


def _prepare(c: Case, work: Path) -> dict[str, str]:
    shutil.copy(BASE, work / "base.json")
    shutil.copy(TRACE, work / "trace.json")
    (work / "store").mkdir()
    import json

    from pinreport.store.files import store_marker

    (work / "store/store.json").write_text(json.dumps(store_marker()))
    (work / "ok.yaml").write_text(
        "schema_version: 2\nscenarios:\n  - name: s\n    kind: overhead\n    api: cudaMallocHost\n    size: 64MiB\n"
    )
    if c.setup:
        c.setup(work)
    return {
        "w": str(work),
        "base": str(work / "base.json"),
        "trace": str(work / "trace.json"),
        "store": str(work / "store"),
        "scn": str(work / "ok.yaml"),
    }


def _command(c: Case, names: dict[str, str]) -> list[str]:
    args = [a.format(**names) for a in c.args]
    if c.tool == "pinbench":
        return [str(PINBENCH), *args]
    return [sys.executable, "-m", "pinreport", *args]


def _run(c: Case, cmd: list[str], work: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PINBENCH_EXE": str(PINBENCH), "PYTHONPATH": str(ROOT / "reports")}
    kwargs = {"cwd": work, "env": env, "stderr": subprocess.PIPE, "stdin": subprocess.DEVNULL}
    extra = []
    close_stdout = c.stdout == "closed"

    def limits():
        # A tool that reads /dev/zero whole must fail on this bound, not take the machine's memory.
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, MEMORY_BOUND))
        if close_stdout:
            os.close(1)

    kwargs["preexec_fn"] = limits
    if close_stdout:
        kwargs["stdout"] = subprocess.DEVNULL
    elif c.stdout == "full":
        kwargs["stdout"] = f = open("/dev/full", "wb")  # noqa: SIM115 - closed below
        extra.append(f)
    elif c.stdout == "epipe":
        r, w = os.pipe()
        os.close(r)
        kwargs["stdout"] = w
        extra.append(w)
    else:
        kwargs["stdout"] = subprocess.PIPE
    try:
        return subprocess.run(cmd, timeout=c.timeout_s, start_new_session=True, **kwargs)
    finally:
        for x in extra:
            x.close() if hasattr(x, "close") else os.close(x)


@pytest.mark.parametrize("c", [pytest.param(c, id=c.id) for c in CASES])
def test_hostile_input(c: Case, tmp_path):
    if c.tool == "pinbench" and not PINBENCH.is_file():
        pytest.skip(f"{PINBENCH} is not built")
    if "mknod" in c.needs:
        try:
            os.mknod(tmp_path / "probe", 0o600 | stat.S_IFCHR, os.makedev(1, 7))
            os.unlink(tmp_path / "probe")
        except (PermissionError, AttributeError):
            pytest.skip("making a device node needs CAP_MKNOD")
    if "dev_full" in c.needs and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    assert c.code in DOCUMENTED[c.tool], f"exit {c.code} is not in {c.tool}'s README table"
    work = tmp_path / "w"
    work.mkdir()
    names = _prepare(c, work)
    before = _snapshot(work)
    try:
        done = _run(c, _command(c, names), work)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"hung: no exit within {c.timeout_s} s; stderr: {(e.stderr or b'')[-500:]!r}")
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode >= 0, f"ended by signal {signal.Signals(-done.returncode).name}: {err[-800:]}"
    assert "Traceback" not in err and "Exception ignored" not in err, err[-2000:]
    assert done.returncode == c.code, f"exit {done.returncode}, expected {c.code}: {err[-800:]}"
    if c.code != 0:  # pinreport compare names a bad stored file in its report, on stdout
        assert err.strip() or (done.stdout or b"").strip(), "a failure says why"
    if c.says:
        assert c.says in err, err
    after = _snapshot(work)
    allowed = set(c.writes)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k) and k not in allowed)
    assert not changed, f"changed files it was not asked to write: {changed}"
