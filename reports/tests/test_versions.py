import pytest
from pinreport.base.versions import is_release, previous_release, release_key


def test_documented_order():
    assert release_key("566.36") < release_key("572.16") < release_key("580.159.04")
    assert sorted(["580.159.04", "566.36", "572.16"], key=release_key) == ["566.36", "572.16", "580.159.04"]


def test_numeric_not_lexical():
    assert release_key("580.9") < release_key("580.10")
    assert release_key("99.1") < release_key("100.0")
    assert release_key("580.65.06") < release_key("580.159.04")


def test_prefix_sorts_first_and_leading_zeros_are_numbers():
    assert release_key("580.65") < release_key("580.65.06")
    assert release_key("580.65.06") == release_key("580.65.6")


def test_text_suffix_after_number():
    assert release_key("999.01") < release_key("999.01-replayed") < release_key("999.02")


@pytest.mark.parametrize("bad", ["", "abc", "580..1", "r580"])
def test_invalid(bad):
    assert not is_release(bad)
    with pytest.raises(ValueError):
        release_key(bad)


def test_previous_release():
    stored = ["566.36", "572.16", "580.159.04", "580.65.06"]
    assert previous_release("580.65.06", stored) == "572.16"
    assert previous_release("580.159.04", stored) == "580.65.06"
    assert previous_release("566.36", stored) is None
    assert previous_release("600.1", stored + ["unknown-release"]) == "580.159.04"
