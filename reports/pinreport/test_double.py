"""Results of the test-double driver (docs/test-double.md): it measured nothing, so its results
are never a baseline. Its driver release and device names carry the marker (schema.py)."""

from pinreport.environment import Environment
from pinreport.schema import TEST_DOUBLE_MARKER


def produced_by_test_double(env: Environment) -> bool:
    """True when the results' driver release or a device name carries the test-double marker
    (as the harness's produced_by_test_double reads the same environment record)."""
    return (env.release is not None and TEST_DOUBLE_MARKER in env.release) or any(
        TEST_DOUBLE_MARKER in name for name in env.device_names
    )
