import pytest
from pinreport.errors import UsageError
from pinreport.units import format_bytes, parse_size


@pytest.mark.parametrize(
    "text, value",
    [("2GiB", 2 * 1024**3), ("64 MiB", 64 * 1024**2), ("1.5GiB", 3 * 1024**3 // 2), ("4096B", 4096), ("1GB", 10**9)],
)
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("bad", ["2", "2gib", "0MiB", "1.5B", "-1MiB", "", "1e3MiB"])
def test_parse_size_rejects(bad):
    with pytest.raises(UsageError):
        parse_size(bad)


def test_format_bytes():
    assert format_bytes(8 * 1024**2) == "8.00 MiB"
    assert format_bytes(-2 * 1024**2) == "-2.00 MiB"
    assert format_bytes(0) == "0 B"
    assert format_bytes(1536) == "1.50 KiB"
