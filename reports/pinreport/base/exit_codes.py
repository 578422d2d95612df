"""pinreport's exit codes and the rule that picks one, in one place (cli.py's docstring says
what each means to a user): the highest that applies.

0 nothing regressed and the rule holds; 1 a REGRESSION, a VIOLATION or a trace that DISAGREES;
2 bad input; 3 an infrastructure failure (or a disturbance that stopped a verdict); 4 a bug in
pinreport itself (never 1, the REGRESSION code); 128 + N stopped by signal N (130 Ctrl-C,
143 SIGTERM, 129 SIGHUP, as pinbench; base/signals.py).
"""

EXIT_OK, EXIT_REGRESSION, EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE = 0, 1, 2, 3
EXIT_INTERNAL = 4
EXIT_SIGNAL_BASE = 128  # the shells' convention: 128 + the signal's number


def signal_exit(signum: int) -> int:
    """The exit code of a program stopped by signal `signum`."""
    return EXIT_SIGNAL_BASE + int(signum)


EXIT_INTERRUPTED = signal_exit(2)  # SIGINT, Ctrl-C


def verdict_exit(*, infrastructure: bool, bad_input: bool, regressed: bool) -> int:
    """The highest that applies: 3 infrastructure, 2 bad input, 1 regressed, else 0."""
    if infrastructure:
        return EXIT_INFRASTRUCTURE
    if bad_input:
        return EXIT_BAD_INPUT
    return EXIT_REGRESSION if regressed else EXIT_OK


def with_bad_input(code: int, bad_input: bool) -> int:
    """`code`, raised to 2 when a bad input was named beside it (3 stays 3)."""
    return max(code, EXIT_BAD_INPUT) if bad_input and code < EXIT_BAD_INPUT else code
