import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


# Hypothesis (the property tests, test_fuzz_*.py): bounded for CI by default; a longer run with
# PINREPORT_FUZZ=nightly (ci/nightly.sh), e.g. PINREPORT_FUZZ=nightly pytest tests/test_fuzz_*.py.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
    )
    settings.register_profile("nightly", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("PINREPORT_FUZZ", "ci"))
except ImportError:  # test_fuzz_*.py skip with the reason
    pass


# The harness the tests upgrade committed results with: pinreport reads the current results
# version only, and the harness alone upgrades an older file (`pinbench results upgrade`).
PINBENCH = Path(os.environ.get("PINBENCH_EXE") or REPO_ROOT / "build/ci-nogpu/harness/pinbench")
_UPGRADED: dict[Path, Path] = {}
_UPGRADED_FOLDER: list[Path] = []  # made on first use, removed at exit


def upgraded(path: str | Path) -> Path:
    """A committed results file (results/**) in the current results version: the file itself
    when it is, else the built harness's `pinbench results upgrade` of it, written once per test
    process below a temporary folder under its path in the repository (results/NAME/x.json keeps
    its name; another file under its whole path). Skips the test when no pinbench is built
    (PINBENCH_EXE)."""
    import atexit
    import json
    import shutil
    import subprocess
    import tempfile

    from pinreport.base.schema import RESULTS_SCHEMA_VERSION

    path = Path(path).resolve()
    shown = path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else Path(*path.parts[1:])
    if path in _UPGRADED:
        return _UPGRADED[path]
    if json.loads(path.read_bytes()).get("schema_version") == RESULTS_SCHEMA_VERSION:
        _UPGRADED[path] = path
        return path
    if not PINBENCH.is_file():
        pytest.skip(f"needs a built pinbench (PINBENCH_EXE) to upgrade {shown}")
    if not _UPGRADED_FOLDER:
        _UPGRADED_FOLDER.append(Path(tempfile.mkdtemp(prefix="pinreport-tests-upgraded-")))
        atexit.register(shutil.rmtree, _UPGRADED_FOLDER[0], True)
    out = _UPGRADED_FOLDER[0] / shown
    out.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([str(PINBENCH), "results", "upgrade", str(path), "-o", str(out)], capture_output=True)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    _UPGRADED[path] = out
    return out
