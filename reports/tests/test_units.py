import pytest
from pinreport.base.errors import UsageError
from pinreport.base.units import format_bytes, parse_size


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


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("18446744073709551616B", "too large: '18446744073709551616B' (at most 2^64 - 1 bytes)"),
        ("16777216TiB", "too large"),
        ("1" * 5000 + "B", "not a size: '" + "1" * 61 + "...'"),
    ],
)
def test_parse_size_is_bounded_as_the_harness(text, says):
    """The harness's parse_size refuses sizes above 2^64 - 1 bytes (harness/src/scenario/units.cpp);
    `pinreport reserve --size 18446744073709551616B` was accepted once."""
    with pytest.raises(UsageError) as e:
        parse_size(text)
    assert says in str(e.value)
    assert parse_size("18446744073709551615B") == 2**64 - 1


def test_reserve_refuses_a_size_too_large_before_reading_the_store(tmp_path, capsys):
    from pinreport.cli import main

    code = main(["reserve", "--store", str(tmp_path), "--size", "18446744073709551616B"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == "error: too large: '18446744073709551616B' (at most 2^64 - 1 bytes)\n"
