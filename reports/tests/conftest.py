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
