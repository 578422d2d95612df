"""Results of the test-double driver (docs/test-double.md): it measured nothing, so its results
are never a baseline. Its driver release and device names carry the marker (schema.py)."""

from typing import Any

from pinreport.schema import TEST_DOUBLE_MARKER


def produced_by_test_double(doc: dict[str, Any]) -> bool:
    """True when the results' driver release or a device name carries the test-double marker
    (as the harness's produced_by_test_double reads the same environment record)."""
    env = doc.get("environment")
    if not isinstance(env, dict):
        return False
    driver = env.get("driver")
    release = driver.get("release") if isinstance(driver, dict) else None
    if isinstance(release, str) and TEST_DOUBLE_MARKER in release:
        return True
    devices = env.get("devices")
    return isinstance(devices, list) and any(
        isinstance(d, dict) and isinstance(d.get("name"), str) and TEST_DOUBLE_MARKER in d["name"] for d in devices
    )
