"""exit_codes.py: the codes' values (cli.py's docstring and docs promise them) and the rule."""

from pinreport.base.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_INFRASTRUCTURE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REGRESSION,
    verdict_exit,
    with_bad_input,
)


def test_values_are_the_documented_ones():
    assert (EXIT_OK, EXIT_REGRESSION, EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE, EXIT_INTERNAL) == (0, 1, 2, 3, 4)
    assert EXIT_INTERRUPTED == 130


def test_the_highest_that_applies():
    assert verdict_exit(infrastructure=False, bad_input=False, regressed=False) == 0
    assert verdict_exit(infrastructure=False, bad_input=False, regressed=True) == 1
    assert verdict_exit(infrastructure=False, bad_input=True, regressed=True) == 2
    assert verdict_exit(infrastructure=True, bad_input=True, regressed=True) == 3


def test_bad_input_raises_to_two_and_never_lowers():
    assert [with_bad_input(c, True) for c in (0, 1, 2, 3)] == [2, 2, 2, 3]
    assert [with_bad_input(c, False) for c in (0, 1, 2, 3)] == [0, 1, 2, 3]
